/**
 * Step 1 of the report: the OS image of a release, read from its payload (`oc adm release info --image-for=
 * rhel-coreos-8` when `oc` exists, else the payload's image-references read from the registry) with the session's
 * registry access. Delegates to helpers/images, which owns reading release payloads.
 */
import type { RegistryAccess } from './credentials.js';
import { releaseImageFor } from './images/release-info.js';

/** The tag of a 4.12 release's base OS image (4.13+ call it rhel-coreos). */
export const BASE_OS_TAG = 'rhel-coreos-8';

export async function releaseOsImage(access: RegistryAccess, releaseImage: string): Promise<string> {
  return releaseImageFor(releaseImage, BASE_OS_TAG, { credentials: access.credentials, pullSecretFile: access.pullSecretPath });
}
