// helpers/images: container engine, image builds and pushes, registry access, release payload reading, local registry.
export * from './errors.js';
export { connectEngine, engineCandidates, parseDockerHost, type Engine } from './engine.js';
export { startLocalRegistry, freeLoopbackPort, type LocalRegistry, type LocalRegistryOptions } from './local-registry.js';
export { ensureBusyboxBase, busyboxBaseTag, BUSYBOX_BASE_REPOSITORY } from './base-image.js';
export { buildImage, removeImage, classifyBuildError, type BuildOptions, type BuildResult } from './build.js';
export { pushImage, type PushOptions, type PushResult } from './push.js';
export { pullImage, ImagePullError } from './pull.js';
export { RegistryClient, type RegistryClientOptions } from './registry-client.js';
export { RegistryCredentials, loadRegistryCredentials, parseDockerConfig, normalizeRegistryHost, type RegistryAuth } from './credentials.js';
export { parseImageRef, formatImageRef, repositoryName, isLoopbackRegistry, type ImageRef } from './image-ref.js';
export { releaseImageFor, ReleaseImageTagNotFoundError } from './release-info.js';
export { readReleasePayload, makeImageReferences, parseImageReferences, imageForTag, type ReleasePayload, type ReleaseMetadata } from './release-payload.js';
export { newRunId, runImageTag, testImageLabels, LABEL_CASE_ID, LABEL_RUN_ID, LABEL_EXPIRES_AFTER } from './naming.js';
