/**
 * Step 1 of the report: the OS image of a release, read from its payload (`oc adm release info --image-for=
 * rhel-coreos-8` when `oc` exists, else the payload's image-references read from the registry). Delegates to
 * helpers/images, which owns reading release payloads.
 */
import { releaseImageFor } from './images/release-info.js';
import { registryCredentials } from './layered-image.js';
import { target } from './target.js';

/** The tag of a 4.12 release's base OS image (4.13+ call it rhel-coreos). */
export const BASE_OS_TAG = 'rhel-coreos-8';

export async function releaseOsImage(releaseImage: string): Promise<string> {
  return releaseImageFor(releaseImage, BASE_OS_TAG, { credentials: registryCredentials(), pullSecretFile: target().pullSecretPath });
}
