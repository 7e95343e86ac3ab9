/**
 * What the 4.12 daemon makes of a MachineConfig's osImageURL before it touches the OS, and the two ways that fails.
 *
 * Upstream openshift/machine-config-operator, the same code at cad20f710 (the nightly's), 3943ef1d0 (FIX) and
 * 963248648 (release-4.12 on GA day), pkg/daemon:
 *  - update.go `applyOSChanges` asks rpm-ostree.go `IsBootableImage`, which inspects the image (image-inspect.go,
 *    falling back to `podman pull` through pivot/utils `RunExt`) and reads its `ostree.bootable` label. When the image
 *    cannot be inspected the update fails there, wrapped as "Error checking type of update image: %w": the node's
 *    reason then carries RunExt's "failed to run command podman (6 tries)" around wait's timeout and podman's output.
 *  - An image whose `ostree.bootable` is not "true" is taken for the old format (machine-os-content):
 *    `applyLegacyOSChanges` extracts it into /run/mco-machine-os-content/os-content-<n>, and `Rebase` needs its ostree
 *    commit, from the `com.coreos.ostree-commit` label or else from `ostree refs` of the extracted /srv/repo. An image
 *    that is not an OS at all has neither, so `ostree refs` fails on the missing folder and `updateOS` reports
 *    "failed to update OS to %s : %w" around runGetOut's "error running %s %s: %s" and ostree's stderr.
 * SetDegraded (writer.go) writes err.Error() into the node's reason annotation, cut at 2000 bytes.
 *
 * The reference's images carry no /srv/repo, so the one-ref success of `ostree refs` is not modelled: an image with
 * neither label fails.
 */
import type { Rng } from '../rng.js';

export const BOOTABLE_LABEL = 'ostree.bootable';
export const OSTREE_COMMIT_LABEL = 'com.coreos.ostree-commit';
/** Where the daemon's pulls find the node's pull secret (kubeletAuthFile). */
const KUBELET_AUTH_FILE = '/var/lib/kubelet/config.json';
/** The tries RunExt makes of `podman pull` (numRetriesNetCommands = 5 retries). */
const PODMAN_TRIES = 6;
/** podman's exit status for an error of its own, as a failed pull ends. */
const PODMAN_ERROR_EXIT = 125;
/** The prefix the reference's pull errors carry as rpm-ostree's importer reports them; podman words its own. */
const IMPORTER_PREFIX = /^Creating importer: failed to invoke method OpenImage: /;

/** SetDegraded's `%.2000s`. */
export function degradedReason(error: string): string {
  return error.length > 2000 ? error.slice(0, 2000) : error;
}

/** Whether IsBootableImage says yes: the new format, which rpm-ostree rebases to directly. */
export function isBootableImage(labels: Record<string, string>): boolean {
  return labels[BOOTABLE_LABEL] === 'true';
}

/**
 * The node's reason when the image cannot be inspected or pulled at all: the last `podman pull` failed with `cause`
 * (the registry's answer, as the reference's image reader words it).
 */
export function uninspectableImageReason(pullspec: string, cause: string): string {
  const podmanOutput = `Error: initializing source docker://${pullspec}: ${cause.replace(IMPORTER_PREFIX, '')}\n`;
  const lastTry = `running podman pull -q --authfile ${KUBELET_AUTH_FILE} ${pullspec} failed: ${podmanOutput}: exit status ${PODMAN_ERROR_EXIT}`;
  return degradedReason(`Error checking type of update image: failed to run command podman (${PODMAN_TRIES} tries): [timed out waiting for the condition, ${lastTry}]`);
}

/**
 * The node's reason when the legacy path cannot find the image's ostree commit, or undefined when the image is
 * bootable or names its commit. `rng` draws the temporary folder's name (Go's TempDir appends a random number).
 */
export function notAnOsImageReason(pullspec: string, labels: Record<string, string>, rng: Rng): string | undefined {
  if (isBootableImage(labels) || labels[OSTREE_COMMIT_LABEL]) return undefined;
  const repo = `/run/mco-machine-os-content/os-content-${Math.floor(rng.next() * 2 ** 32)}/srv/repo`;
  const ostreeStderr = `error: opening repo: opendir(${repo}): No such file or directory\n`;
  return degradedReason(`failed to update OS to ${pullspec} : error running ostree refs --repo ${repo}: exit status 1\n${ostreeStderr}`);
}
