/**
 * Why a daemon could not move a node to a custom OS image, read from its reason as a person would: the image could
 * not be inspected or pulled at all (QE 54054), or it was pulled and is no OS image (QE 54052). The two need
 * different fixes (credentials or the pullspec, against the image's build), so the specs tell them apart.
 *
 * Each release words the failure its own way (releases/rules.ts, FailedRebaseWording):
 * - 4.12-4.13 (pkg/daemon at release-4.12): IsBootableImage's inspection failing is wrapped "Error checking type of
 *   update image: …"; an image without `ostree.bootable` goes the machine-os-content way and fails as "failed to update
 *   OS to <image> : error running ostree refs --repo …";
 * - 4.14-4.15: "failed to update OS to <image> : error running rpm-ostree rebase …: <rpm-ostree's stderr>: exit status 1";
 * - 4.16-4.21: "Failed to update OS to <image> after retries: timed out waiting for the condition" for either class:
 *   the reason cannot tell them apart, the daemon's log can ("Failed to update OS to <image> (will retry): <error>");
 * - 4.22 from August 2026: "failed to update OS to <image> after retries: <last rpm-ostree error>: <timeout>".
 * On a release newer than the suite's table the reason is read as QE's own expressions read it (any of the above).
 */
import type { KnownRelease } from '../releases/select.js';
import type { FailedRebaseWording } from '../releases/rules.js';

export type OsImageFailureClass = 'not pullable' | 'not bootable';

export interface OsImageFailureReading {
  /** Which class the text shows; undefined where the release's wording does not say (4.16-4.21's reason). */
  class?: OsImageFailureClass;
  /** The wording the reason matched, or `tolerant` for a release newer than the table. */
  wording: FailedRebaseWording | 'tolerant';
}

/** rpm-ostree's refusal of an image that is not an OS image names the label it misses (QE 54052's expression). */
const NOT_BOOTABLE = /ostree\.bootable|not bootable/i;
/**
 * What a pull that never got the image says, through rpm-ostree's container import or podman: the registry's answer
 * (manifest or name unknown, unauthorized, denied) or the way there (no such host, refused, timed out, TLS).
 */
const NOT_PULLABLE = /manifest unknown|name unknown|unauthorized|authentication required|access denied|denied:|not found|no such host|connection refused|i\/o timeout|initializing source|reading manifest|pinging container registry|x509:|tls:/i;

/** The class an rpm-ostree (or podman) error shows, if it shows one. */
export function classOfPullOrBootError(text: string): OsImageFailureClass | undefined {
  if (NOT_BOOTABLE.test(text)) return 'not bootable';
  if (NOT_PULLABLE.test(text)) return 'not pullable';
  return undefined;
}

function readWording(reason: string, image: string, wording: FailedRebaseWording): OsImageFailureReading | undefined {
  switch (wording) {
    case 'inspect-then-legacy': {
      if (reason.startsWith('Error checking type of update image: ') && reason.includes(image)) return { class: 'not pullable', wording };
      const failed = `failed to update OS to ${image} : `;
      if (reason.includes(failed) && /error running ostree refs --repo|ostree\.bootable/.test(reason)) return { class: 'not bootable', wording };
      return undefined;
    }
    case 'rebase-error': {
      const failed = `failed to update OS to ${image} : `;
      const at = reason.indexOf(failed);
      if (at < 0 || !reason.includes('error running rpm-ostree rebase')) return undefined;
      const cls = classOfPullOrBootError(reason.slice(at + failed.length));
      return cls ? { class: cls, wording } : undefined;
    }
    case 'retries-timeout':
      return reason.includes(`Failed to update OS to ${image} after retries: `) && /timed out waiting for the condition/.test(reason) ? { wording } : undefined;
    case 'retries-last-error': {
      const failed = `failed to update OS to ${image} after retries: `;
      const at = reason.indexOf(failed);
      if (at < 0) return undefined;
      const cls = classOfPullOrBootError(reason.slice(at + failed.length));
      return cls ? { class: cls, wording } : undefined;
    }
  }
}

/**
 * QE's tolerant reading (OCP-54052/54054): a failed update to `image` in any wording, its class where the text shows one.
 */
function readTolerantly(reason: string, image: string): OsImageFailureReading | undefined {
  if (reason.startsWith('Error checking type of update image: ') && reason.includes(image)) return { class: 'not pullable', wording: 'tolerant' };
  const at = reason.toLowerCase().indexOf(`failed to update os to ${image.toLowerCase()}`);
  if (at < 0) return undefined;
  const rest = reason.slice(at);
  const cls = /error running ostree refs --repo/.test(rest) ? 'not bootable' : classOfPullOrBootError(rest.slice(image.length + 'failed to update OS to '.length));
  if (cls) return { class: cls, wording: 'tolerant' };
  return /timed out waiting for the condition/.test(rest) ? { wording: 'tolerant' } : undefined;
}

/**
 * How a node's reason reads as a failed move to `image` on the release the cluster runs; undefined when the reason is
 * no such failure in any wording that release (or, beyond the table, any release) writes.
 */
export function readOsImageFailure(reason: string, image: string, release: KnownRelease): OsImageFailureReading | undefined {
  if (!release.vouched) return readTolerantly(reason, image);
  for (const wording of [...release.rules.daemon.failedRebase].reverse()) {
    const reading = readWording(reason, image, wording);
    if (reading) return reading;
  }
  return undefined;
}

/**
 * The class the daemon's log shows for its last failed try at `image`: 4.16 and later log the rpm-ostree error of every
 * try ("Failed to update OS to <image> (will retry): <error>") where the node's reason keeps only the timeout.
 */
export function osImageFailureClassInDaemonLog(log: string, image: string): OsImageFailureClass | undefined {
  const marker = `Failed to update OS to ${image} (will retry): `;
  const lines = log.split('\n').filter((l) => l.includes(marker));
  const last = lines[lines.length - 1];
  return last === undefined ? undefined : classOfPullOrBootError(last.slice(last.indexOf(marker) + marker.length));
}
