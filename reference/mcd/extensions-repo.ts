/**
 * The extensions repository an OS update needs, and what rpm-ostree says without it (OCPBUGS-2271).
 *
 * A node whose deployment layers packages (extensions, or the realtime kernel's packages) asks rpm-ostree to layer
 * them again on every new base it rebases to, so rpm-ostree needs a repository holding them for any OS update, not
 * only for the update that added them. The daemon writes that repository (coreos-extensions.repo, from the extracted
 * extensions image) before it rebases. Upstream openshift/machine-config-operator pkg/daemon/update.go
 * applyLayeredOSChanges:
 *  - 3943ef1d0 (PR #3317, which brought extensions to new-format images) up to 343475a^: the repository is written
 *    only when the extensions or the kernel type change, so an OS-only update (an upgrade, for such a pool) finds no
 *    repository, and the node stays Degraded on every retry;
 *  - 343475a (PR #3373, in release-4.12 before GA): written for an OS update too.
 * cad20f710 (the nightly's code) never had it: its new-format path refuses extensions outright and its
 * machine-os-content path (applyLegacyOSChanges) extracts the repository for every OS update. So only the fault
 * `mcd-no-extensions-repo-on-os-update` plays that window; no profile does.
 */
import type { DeploymentConfig } from '../kubelet/hosts.js';
import type { ConfigDiff } from './node-config.js';

/** rpm-ostree's error when packages are requested and no repository is enabled (src/libpriv/rpmostree-core.cxx). */
export const NO_ENABLED_REPOSITORIES = 'No enabled repositories';

/**
 * The node's Degraded reason when `rpm-ostree rebase` fails: updateLayeredOS's "failed to update OS to %s : %w" around
 * runCmdSync's "error running %s %s: %s: %w" with rpm-ostree's stderr (its `error: …` line and newline) and the exit
 * status, as SetDegraded writes err.Error() into the reason annotation (at most 2000 bytes).
 */
export function rebaseFailureReason(osImageURL: string, rpmOstreeError: string): string {
  const reason = `failed to update OS to ${osImageURL} : error running rpm-ostree rebase --experimental ostree-unverified-registry:${osImageURL}: error: ${rpmOstreeError}\n: exit status 1`;
  return reason.length > 2000 ? reason.slice(0, 2000) : reason;
}

/** Whether the deployment asks rpm-ostree to layer packages on its base (what needs a repository on a rebase). */
export function layersPackages(deployment: DeploymentConfig): boolean {
  return deployment.extensions.length > 0 || deployment.kernelType === 'realtime';
}

/**
 * The rebase's failure when the daemon did not write the repository: an OS-only update of a deployment that layers
 * packages, with the code of the buggy window (`omitsRepoOnOsUpdate`). Undefined when the rebase goes through.
 */
export function missingExtensionsRepoFailure(omitsRepoOnOsUpdate: boolean, osImageURL: string, diff: ConfigDiff, deployment: DeploymentConfig): string | undefined {
  const repoWritten = diff.extensions || diff.kernelType || (diff.osUpdate && !omitsRepoOnOsUpdate);
  if (!diff.osUpdate || repoWritten || !layersPackages(deployment)) return undefined;
  return rebaseFailureReason(osImageURL, NO_ENABLED_REPOSITORIES);
}
