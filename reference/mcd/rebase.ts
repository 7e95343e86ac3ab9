/**
 * How the daemon from 4.16 moves a node to a new OS image: `rpm-ostree rebase --experimental
 * ostree-unverified-registry:<image>` straight away (the 4.12 inspection and machine-os-content path are gone since
 * 85b297c1a, 4.14), tried again with an exponential backoff (the OCPBUGS-43406 workaround), and only when every try
 * failed is the node Degraded.
 *
 * Upstream openshift/machine-config-operator pkg/daemon:
 *  - update.go `updateLayeredOSToPullspec` at release-4.20 afed09939 and release-4.21 db84d8368: wait.Backoff
 *    {5 s, factor 2, 5 steps}; each failed try logs "Failed to update OS to %s (will retry): %v"; after the last the
 *    error is "Failed to update OS to %s after retries: %w" around wait's timeout, so the rpm-ostree error is in the
 *    log alone;
 *  - the same at release-4.22 9027c94cd (OCPBUGS-112614, 2026-08-21): {10 s, factor 2, 7 steps, cap 60 s}, and the
 *    error "failed to update OS to %s after retries: %v: %w" keeps the last try's error;
 *  - rpm-ostree.go `RebaseLayered` runs rpm-ostree through update.go `runCmdSync`: "error running %s %s: %s: %w" with
 *    rpm-ostree's stderr and the exit status.
 * wait.ExponentialBackoff (k8s.io/apimachinery pkg/util/wait) sleeps between tries, not after the last one, and ends
 * with "timed out waiting for the condition".
 *
 * rpm-ostree's own errors come from ostreedev/ostree-rs-ext lib/src/container/store.rs (b885f94): `prepare` ("Preparing
 * import") refuses an image whose config has neither `ostree.bootable` nor `containers.bootc`: "Target image does not
 * have ostree.bootable label"; a pull error is the image proxy's, as the reference's image reader words it.
 */
import type { RebaseWithRetries } from '../profiles/profile.js';
import { BOOTABLE_LABEL, degradedReason } from './image-type.js';

const SECOND = 1000;
/** The label bootc images carry, which ostree-rs-ext accepts in place of ostree.bootable. */
const BOOTC_LABEL = 'containers.bootc';
const TIMEOUT = 'timed out waiting for the condition';

/** The command the daemon runs, as its log and errors show it. */
export function rebaseCommand(image: string): string {
  return `rpm-ostree rebase --experimental ostree-unverified-registry:${image}`;
}

/** Whether ostree-rs-ext accepts the image as an OS (it only asks that one of the two labels is there). */
export function acceptedAsOs(labels: Record<string, string>): boolean {
  return Object.hasOwn(labels, BOOTABLE_LABEL) || Object.hasOwn(labels, BOOTC_LABEL);
}

/** rpm-ostree's refusal of an image that is no OS, as runCmdSync wraps its stderr. */
export function notAnOsRebaseError(image: string): string {
  return rebaseError(image, `Preparing import: Target image does not have ${BOOTABLE_LABEL} label`);
}

/**
 * ostree-rs-ext's refusal of a bootable image built for another architecture (store.rs `create_prepared_import`, from
 * 2db0f2a "Require matching architecture for bootable images", 2024-08-29, PR #656): the config's architecture
 * against the host's, in OCI's names.
 */
export function wrongArchitectureRebaseError(image: string, imageArchitecture: string, nodeArchitecture: string): string {
  return rebaseError(image, `Preparing import: Image has architecture ${imageArchitecture}; expected ${nodeArchitecture}`);
}

/** A failed pull (`cause` as the reference's image reader words the registry's answer), as runCmdSync wraps it. */
export function pullRebaseError(image: string, cause: string): string {
  return rebaseError(image, cause);
}

function rebaseError(image: string, error: string): string {
  return `error running ${rebaseCommand(image)}: error: ${error}\n: exit status 1`;
}

/** The cluster ms slept after each failed try but the last: the backoff's steps, doubled and capped. */
export function rebaseRetryDelaysMs(retries: RebaseWithRetries): number[] {
  const delays: number[] = [];
  let delay = retries.firstDelaySeconds;
  for (let step = 1; step < retries.steps; step++) {
    delays.push(Math.min(delay, retries.capSeconds ?? Infinity) * SECOND);
    delay *= 2;
  }
  return delays;
}

/** The log line of one failed try. */
export function willRetryLine(image: string, error: string): string {
  return `Failed to update OS to ${image} (will retry): ${error}`;
}

/**
 * The node's Degraded reason once every try failed. `losesError`: fault mcd-loses-rebase-error, the %w of a nil error
 * as Go's fmt prints it.
 */
export function rebaseFailedReason(image: string, lastError: string, retries: RebaseWithRetries, losesError = false): string {
  if (losesError) return degradedReason(`Failed to update OS to ${image} after retries: %!w(<nil>)`);
  return degradedReason(
    retries.reasonCarriesLastError ? `failed to update OS to ${image} after retries: ${lastError}: ${TIMEOUT}` : `Failed to update OS to ${image} after retries: ${TIMEOUT}`,
  );
}
