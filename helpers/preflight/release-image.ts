/**
 * `--to-image`, checked before any spec prepares: it must parse as a pullspec, exist in its registry, be an OpenShift
 * release payload (image-references and release-metadata), and name a release newer than the cluster's. Its version
 * is learned here, from the payload's metadata.
 */
import semver from 'semver';
import { ImageHelperError, ImageNotFoundError, RegistryUnauthorizedError, RegistryUnreachableError } from '../../lib/oci/errors.js';
import { parseImageRef } from '../../lib/oci/image-ref.js';
import { readReleasePayload, ReleasePayloadError } from '../../lib/oci/release-payload.js';
import type { RegistryClient } from '../../lib/oci/image-files.js';
import { MirroredPullError, MirroredRegistryClient } from '../../lib/oci/mirrored-pull.js';
import { BadInputError } from './bad-input.js';

export interface ReleaseImage {
  image: string;
  version: string;
}

/** The syntax alone: no network, so it runs before anything else. */
export function checkPullspecSyntax(flag: string, pullspec: string): void {
  try {
    parseImageRef(pullspec);
  } catch (error) {
    throw new BadInputError(`${flag} ${pullspec} is not an image pullspec: ${(error as Error).message}`);
  }
}

/**
 * Reads the release payload; `currentVersion` (the cluster's, or on an upgrade path the hop before's when `afterHop`)
 * must be older than the release's.
 */
export async function checkReleaseImage(registry: RegistryClient, image: string, currentVersion?: string, afterHop = false): Promise<ReleaseImage> {
  checkPullspecSyntax('--to-image', image);
  let version: string;
  try {
    version = (await readReleasePayload(registry, image)).metadata.version;
  } catch (error) {
    throw new BadInputError(`--to-image ${image}: ${why(error, image, registry)}`, { cause: error });
  }
  const release = semver.parse(version);
  const current = currentVersion ? semver.parse(currentVersion) : null;
  if (release && current && semver.compare(release, current) <= 0) {
    const relation = afterHop
      ? `${semver.eq(release, current) ? 'the version of' : 'older than'} the hop before it, ${currentVersion}`
      : semver.eq(release, current) ? 'the version the cluster already runs' : `older than the cluster's ${currentVersion}`;
    throw new BadInputError(`--to-image ${image} is release ${version}, ${relation}: give a newer release`);
  }
  return { image, version };
}

/**
 * Why the payload could not be read, in words that tell a registry out of reach (a disconnected bastion, with the
 * mirror sets tried) from an image that is not a release.
 */
function why(error: unknown, image: string, registry: RegistryClient): string {
  const host = parseImageRef(image).registry;
  if (error instanceof MirroredPullError) return `cannot reach ${host} through the mirror sets or directly: ${error.message}`;
  if (error instanceof RegistryUnreachableError && registry instanceof MirroredRegistryClient && registry.mirrors.rulesFor(image).length === 0) {
    const byTag = !parseImageRef(image).digest;
    // a digest mirror of the same repository cannot serve a tag: say how to give the release so that it can
    const byDigestOnly = byTag && registry.mirrors.rulesFor(`${image.replace(/:[^:/]+$/, '')}@sha256:${'0'.repeat(64)}`).length > 0;
    const sets = registry.mirrors.empty
      ? 'the cluster has no mirror sets (ImageDigestMirrorSet, ImageTagMirrorSet, ImageContentSourcePolicy) and no --idms-file/--icsp-file was given'
      : `no mirror set (${registry.mirrors.describe()}) maps ${image} for a pull ${byTag ? 'by tag' : 'by digest'}${byDigestOnly ? '; they mirror its repository for pulls by digest only: give the release by digest (<repository>@sha256:…)' : ''}`;
    return `cannot reach ${host}: ${(error as Error).message} (${sets})`;
  }
  if (error instanceof ImageNotFoundError) return 'no such image in its registry';
  if (error instanceof ReleasePayloadError) return `not an OpenShift release image (${(error as Error).message})`;
  if (error instanceof RegistryUnauthorizedError) return `${(error as Error).message}; give --pull-secret with credentials for it`;
  if (error instanceof RegistryUnreachableError) return (error as Error).message;
  if (error instanceof ImageHelperError) return (error as Error).message;
  return `cannot read it: ${(error as Error).message}`;
}
