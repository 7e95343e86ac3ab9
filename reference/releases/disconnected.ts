/**
 * How a disconnected cluster's payload names its images (`--disconnected`): as a release from Red Hat names them,
 * `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:<digest>` for every component and OS image and
 * `quay.io/openshift-release-dev/ocp-release:<version>-<arch>` for the release itself, with the digests of the images
 * the local registry holds. The local registry is the mirror: its repositories are where `oc adm release mirror` (or
 * oc-mirror) would have copied them, and the cluster's mirror sets (reference/mirror-sets.ts) point there.
 */
import { parseImageRef } from '../../lib/oci/image-ref.js';
import { OS_REPOSITORY, PAYLOAD_REPOSITORY } from './recipes.js';

export const QUAY = 'quay.io';
/** Where Red Hat's component and OS images are; the local registry keeps them under the same path. */
export const ART_SOURCE = `${QUAY}/${OS_REPOSITORY}`;
/** Where Red Hat's release payloads are, tagged `<version>-<arch>`. */
export const RELEASE_SOURCE = `${QUAY}/openshift-release-dev/ocp-release`;
/** The architecture suffix of a release tag: the reference's nodes are amd64 (x86_64). */
export const RELEASE_ARCH = 'x86_64';

/** A source repository and the local registry's repository that mirrors it. */
export interface MirrorPair {
  source: string;
  mirror: string;
}

/** The mirrors of a disconnected reference: the component images' repository and the payloads'. */
export function mirrorPairs(registry: string): MirrorPair[] {
  return [
    { source: ART_SOURCE, mirror: `${registry}/${OS_REPOSITORY}` },
    { source: RELEASE_SOURCE, mirror: `${registry}/${PAYLOAD_REPOSITORY}` },
  ];
}

/** The local registry's tag of a disconnected payload: the tag quay.io gives the release, so a tag mirror finds it. */
export function mirroredPayloadTag(registry: string, version: string): string {
  return `${registry}/${PAYLOAD_REPOSITORY}:${version}-${RELEASE_ARCH}`;
}

/** The name a payload gives a local image (`<registry>/openshift-release-dev/…@sha256:…`): quay.io's, same digest. */
export function upstreamPullspec(localPullspec: string): string {
  const { repository, digest } = parseImageRef(localPullspec);
  if (!digest || repository !== OS_REPOSITORY) throw new Error(`${localPullspec} is not an image of ${OS_REPOSITORY} by digest`);
  return `${ART_SOURCE}@${digest}`;
}

/** The release as a disconnected cluster names it: by digest, as the installer pins it (an ICSP mirrors digests only). */
export function upstreamReleasePullspec(payloadDigest: string): string {
  return `${RELEASE_SOURCE}@${payloadDigest}`;
}
