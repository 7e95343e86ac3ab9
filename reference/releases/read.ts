// What the CVO learns from a payload image: its version and OS images, read from the registry.
import type { RegistryClient } from '../../lib/oci/image-files.js';
import { readReleasePayload } from '../../lib/oci/release-payload.js';
import { ReleaseBuildError } from './ensure.js';
import { baseOsTag, isOsImageTag, type ReleaseInfo } from './release-info.js';

/** The release a payload describes (image-references + release-metadata), whichever names it gives its OS images. */
export async function readReleaseInfo(client: RegistryClient, payloadRef: string): Promise<ReleaseInfo> {
  const payload = await readReleasePayload(client, payloadRef);
  const osImages = Object.fromEntries(Object.entries(payload.images).filter(([tag]) => isOsImageTag(tag)));
  if (!baseOsTag({ osImages }) && !osImages['machine-os-content']) {
    throw new ReleaseBuildError(`Release ${payloadRef} names neither rhel-coreos(-8) nor machine-os-content in its image-references`);
  }
  return { version: payload.metadata.version, image: payloadRef, osImages, previous: payload.metadata.previous ?? [] };
}
