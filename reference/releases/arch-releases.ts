/**
 * A release set for the cluster's architectures (topology.ts Arch), made from the amd64 images ensure.ts builds, through
 * the registry API alone (lib/oci/platform-images.ts):
 * - `arm64`: each OS image's arm64 copy (`<version>-<tag>-aarch64`) and a payload `ocp/release:<version>-aarch64`
 *   naming them, all single-arch images whose config says arm64, as the aarch64 payload of a real release is;
 * - `multi`: each OS image an OCI index over its amd64 image and that arm64 copy (`<version>-<tag>-multi`), and the
 *   payload `ocp/release:<version>-multi` an index over an amd64 and an arm64 payload that both name those indexes, as
 *   the multi payload names manifest-listed component images.
 * The arm64 images hold the amd64 images' content unchanged (busybox-based stand-ins whose binaries are x86-64): only
 * their config's architecture differs, so nothing needs emulation to make them, and a build FROM one runs its RUN
 * steps natively. What a node compares (ostree-rs-ext: the config's architecture against its own) is what differs.
 */
import type { RegistryApi } from '../../lib/oci/registry-api.js';
import { IMAGE_REFERENCES_PATH, makeImageReferences } from '../../lib/oci/release-payload.js';
import { pushArchitectureVariant, pushImageIndex, pushWithFiles } from '../../lib/oci/platform-images.js';
import type { Arch } from '../topology.js';
import type { BuiltReleases } from './ensure.js';
import type { ReleaseInfo } from './release-info.js';

/** The tag suffix of a release's images for an architecture, as real payload tags say it (`4.16.0-aarch64`, `-multi`). */
const SUFFIX: Record<Exclude<Arch, 'amd64'>, string> = { arm64: 'aarch64', multi: 'multi' };

/** `repo:tag` or `repo@digest` → `repo:<tag>` in the same repository. */
function retag(pullspec: string, tag: string): string {
  const at = pullspec.indexOf('@');
  const repo = at >= 0 ? pullspec.slice(0, at) : pullspec.slice(0, pullspec.lastIndexOf(':'));
  return `${repo}:${tag}`;
}

/** The releases as a cluster of `arch` has them; amd64's are ensure.ts's own. Idempotent: the same inputs push the same digests. */
export async function releasesForArch(client: RegistryApi, built: BuiltReleases, arch: Arch): Promise<BuiltReleases> {
  if (arch === 'amd64') return built;
  const path = [];
  for (const release of built.path) path.push(await releaseForArch(client, release, arch));
  return { current: path[0]!, next: path[1]!, path };
}

async function releaseForArch(client: RegistryApi, release: ReleaseInfo, arch: Exclude<Arch, 'amd64'>): Promise<ReleaseInfo> {
  const suffix = SUFFIX[arch];
  const osImages: Record<string, string> = {};
  for (const [tagName, pullspec] of Object.entries(release.osImages)) {
    const arm = await pushArchitectureVariant(client, pullspec, retag(pullspec, `${release.version}-${tagName}-aarch64`), 'arm64');
    osImages[tagName] = arch === 'arm64' ? arm.pullspec : await pushImageIndex(client, retag(pullspec, `${release.version}-${tagName}-multi`), [{ pullspec, architecture: 'amd64' }, { pullspec: arm.pullspec, architecture: 'arm64' }]);
  }
  // the payload names the images of its architecture (or the indexes): image-references in a layer over the amd64 payload's
  const references = { [IMAGE_REFERENCES_PATH.replace(/^\//, '')]: JSON.stringify(makeImageReferences(release.version, osImages), null, 2) + '\n' };
  const payloadTag = `${release.image}-${suffix}`;
  const armPayload = await pushWithFiles(client, release.image, `${release.image}-aarch64${arch === 'multi' ? '-of-multi' : ''}`, 'arm64', references);
  if (arch === 'arm64') return { ...release, image: payloadTag, osImages };
  const amdPayload = await pushWithFiles(client, release.image, `${release.image}-x86_64-of-multi`, 'amd64', references);
  await pushImageIndex(client, payloadTag, [{ pullspec: amdPayload.pullspec, architecture: 'amd64' }, { pullspec: armPayload.pullspec, architecture: 'arm64' }]);
  return { ...release, image: payloadTag, osImages };
}
