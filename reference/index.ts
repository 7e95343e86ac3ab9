/**
 * The reference OpenShift cluster, as its users see it: start one (cluster.ts assembles it, cluster-handle.ts is what
 * you hold), a registry of a profile's releases several clusters can share (reference-registry.ts), the profiles
 * (profiles/index.ts), the faults (faults.ts) and the accessors of a release's OS images (releases/release-info.ts).
 *
 *   const cluster = await startReferenceCluster({ profile: '4.12-nightly-2022-09-08' });
 *   // KUBECONFIG=cluster.kubeconfigPath kubectl get co machine-config
 *   await cluster.stop();
 */
import { getProfile } from './profiles/index.js';

export { startReferenceCluster, type ReferenceClusterOptions } from './cluster.js';
export type { ReferenceCluster } from './cluster-handle.js';
export { startReferenceRegistry, type ReferenceRegistry, type ReferenceRegistryOptions } from './reference-registry.js';
export { FAULTS, type FaultName } from './faults.js';
export { DEFAULT_PROFILE, getProfile, PROFILE_NAMES, PROFILES, REPORT_PROFILE, type Profile, type ProfileName } from './profiles/index.js';
export { baseOsImage, baseOsTag, extensionsImage, machineOsContent, type ReleaseInfo } from './releases/release-info.js';
export { COMPONENTS, type ComponentName } from './components.js';

/** The default profile's releases, for code that does not ask its cluster (`cluster.releases`); every profile may differ. */
export const CURRENT_VERSION = getProfile(undefined).releases.current.version;
export const NEXT_VERSION = getProfile(undefined).releases.next.version;
