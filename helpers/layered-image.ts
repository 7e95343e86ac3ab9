/**
 * Step 2 of the report: build the layered OS image from images/layered-os/Containerfile on top of the release's
 * rhel-coreos-8 image, push it to the run's image repository, and hand back the pullspec by digest (every node pulls
 * on its own, so a moving tag is never used). The image carries an expiry label as QE's images do.
 */
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { buildImage, removeImage } from '../lib/oci/build.js';
import { parseDockerConfig, RegistryCredentials } from '../lib/oci/credentials.js';
import { connectEngine, type Engine } from '../lib/oci/engine.js';
import { runImageTag, testImageLabels } from './images/naming.js';
import { pushImage } from '../lib/oci/push.js';
import type { TargetCapabilities } from './capabilities.js';
import type { Cluster } from './cluster.js';
import { parsePullSecret } from './secrets.js';
import { pullSecret, type TargetConfig } from './target.js';

const LAYERED_OS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'images', 'layered-os');

export interface LayeredImage {
  /** `<repo>@sha256:…`: what the MachineConfigs use. */
  pullspec: string;
  digest: string;
  /** `<repo>:<run-id>-<case-id>`: the tag it was pushed as. */
  tag: string;
  baseImage: string;
  buildMs: number;
  pushMs: number;
}

let enginePromise: Promise<Engine> | undefined;

/** The container engine (connected once per process). */
export function engine(): Promise<Engine> {
  enginePromise ??= connectEngine();
  return enginePromise;
}

/** Where layered images go: --image-repo, else the repository the reference cluster publishes. */
export function imageRepository(targetConfig: TargetConfig, caps: TargetCapabilities): string {
  const repo = targetConfig.imageRepo ?? caps.imageRepo;
  if (!repo) {
    throw new Error(
      'no image repository for the layered OS image: pass --image-repo <registry>/<namespace>/<name> (a repository the cluster can pull from, with push credentials in --pull-secret)',
    );
  }
  return repo.replace(/:[^/:]+$/, ''); // a tag given by mistake would be overwritten by ours
}

/** Credentials from --pull-secret. */
export function registryCredentials(): RegistryCredentials {
  const secret = pullSecret();
  return secret ? parseDockerConfig(secret.json, 'the pull secret') : new RegistryCredentials();
}

/**
 * Credentials for building on top of a release image: --pull-secret when given, else the cluster's own pull secret
 * (openshift-config/pull-secret), which is what can pull the release's images, as QE's layering tests do.
 */
export async function buildCredentials(cluster: Cluster): Promise<RegistryCredentials> {
  if (pullSecret()) return registryCredentials();
  const data = await cluster.getSecretData('openshift-config', 'pull-secret').catch(() => undefined);
  const json = data?.['.dockerconfigjson'];
  if (!json) return new RegistryCredentials();
  parsePullSecret(json, 'secret openshift-config/pull-secret'); // registers its credentials for masking
  return parseDockerConfig(json, 'secret openshift-config/pull-secret');
}

export interface LayeredImageRequest {
  cluster: Cluster;
  target: TargetConfig;
  caps: TargetCapabilities;
  caseId: string;
  baseImage: string;
  /** Build output lines (for the report); secrets never reach them, the engine gets credentials out of band. */
  onOutput?: (line: string) => void;
}

export async function buildLayeredOsImage(request: LayeredImageRequest): Promise<LayeredImage> {
  const repo = imageRepository(request.target, request.caps);
  const tag = runImageTag(repo, request.target.runId, request.caseId);
  const credentials = await buildCredentials(request.cluster);
  const eng = await engine();
  const built = await buildImage(eng, {
    contextDir: LAYERED_OS_DIR,
    containerfile: 'Containerfile',
    buildArgs: { BASE_IMAGE: request.baseImage },
    labels: testImageLabels({ runId: request.target.runId, caseId: request.caseId }),
    tag,
    registryConfig: credentials,
    onOutput: request.onOutput,
  });
  const pushed = await pushImage(eng, tag, { auth: credentials });
  return { pullspec: pushed.pullspec, digest: pushed.digest, tag, baseImage: request.baseImage, buildMs: built.durationMs, pushMs: pushed.durationMs };
}

/**
 * Removes the engine's local copies of a layered image (its tag and its by-digest reference). The pushed image stays
 * in the registry, where its expiry label ages it out; the base image stays cached for the next build.
 */
export async function removeLocalLayeredImage(image: LayeredImage): Promise<void> {
  const eng = await engine();
  for (const ref of [image.tag, image.pullspec]) await removeImage(eng, ref);
}

/** A pullspec in the run's repository that cannot be pulled: a digest nothing was ever pushed as. */
export function unpullableImage(targetConfig: TargetConfig, caps: TargetCapabilities): string {
  return `${imageRepository(targetConfig, caps)}@sha256:${'0'.repeat(63)}1`;
}
