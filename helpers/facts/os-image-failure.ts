/**
 * Why a daemon could not move a node to a custom OS image, read from its reason as a person would: the image could
 * not be inspected or pulled at all (QE 54054), or it was pulled and is no OS image (QE 54052). The two need
 * different fixes (credentials or the pullspec, against the image's build), so the specs tell them apart.
 *
 * The texts are 4.12's daemon (pkg/daemon at release-4.12): IsBootableImage's inspection failing is wrapped "Error
 * checking type of update image: …"; an image without `ostree.bootable` goes the machine-os-content way and fails
 * as "failed to update OS to <image> : error running ostree refs --repo …" (later releases have rpm-ostree refuse it
 * with a message naming `ostree.bootable`, which QE's current case accepts too).
 */
export type OsImageFailureClass = 'not pullable' | 'not bootable';

export function osImageFailureClass(reason: string, image: string): OsImageFailureClass | undefined {
  if (reason.startsWith('Error checking type of update image: ') && reason.includes(image)) return 'not pullable';
  const updateFailed = `failed to update OS to ${image} : `;
  if (reason.includes(updateFailed) && /error running ostree refs --repo|ostree\.bootable/.test(reason)) return 'not bootable';
  return undefined;
}
