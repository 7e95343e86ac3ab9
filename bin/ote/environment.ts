/**
 * The environment flags openshift-tests passes to `list` (OTE's flags.EnvironmentalFlags, API v1.1) and the
 * environment selector of our tests. The selector is data (the topologies the specs cannot run on), printed as the
 * CEL OTE's helpers write (`topology=="microshift"`) and evaluated here from the same data.
 */
import type { EnvironmentSelector } from './types.js';

export interface EnvironmentFlags {
  apiGroup: string[];
  architecture?: string;
  externalConnectivity?: string;
  fact: Record<string, string>;
  featureGate: string[];
  network?: string;
  networkStack?: string;
  optionalCapability: string[];
  platform?: string;
  topology?: string;
  upgrade?: string;
  version?: string;
}

/** The flags, as `list` takes them: each a commander option; the repeatable ones collect. */
export const ENVIRONMENT_OPTIONS = [
  { flag: '--api-group <group>', key: 'apiGroup', repeatable: true, what: 'an API group the cluster serves (repeatable)' },
  { flag: '--architecture <arch>', key: 'architecture', what: 'CPU architecture of the cluster (amd64, arm64, ...)' },
  { flag: '--external-connectivity <c>', key: 'externalConnectivity', what: 'Disconnected, Direct or Proxied' },
  { flag: '--fact <key=value>', key: 'fact', repeatable: true, what: 'a fact advertised by a cluster component (repeatable)' },
  { flag: '--feature-gate <gate>', key: 'featureGate', repeatable: true, what: 'a feature gate enabled on the cluster (repeatable)' },
  { flag: '--network <network>', key: 'network', what: 'network of the cluster (ovn, sdn)' },
  { flag: '--network-stack <stack>', key: 'networkStack', what: 'ipv4, ipv6 or dual' },
  { flag: '--optional-capability <cap>', key: 'optionalCapability', repeatable: true, what: 'an optional capability of the cluster (repeatable, comma-separated)' },
  { flag: '--platform <platform>', key: 'platform', what: 'aws, gcp, metal, ...' },
  { flag: '--topology <topology>', key: 'topology', what: 'ha, single, microshift, ...' },
  { flag: '--upgrade <upgrade>', key: 'upgrade', what: 'the upgrade done before the run (micro, minor)' },
  { flag: '--version <major.minor>', key: 'version', what: 'version of the cluster; write --version=4.12, as origin does (a bare --version is ocp-e2e\'s own)' },
] as const;

/**
 * Where the specs cannot run: no MachineConfigPools to override. A hosted control plane (HyperShift; origin passes
 * the Infrastructure's controlPlaneTopology, so `External`) manages its nodes through NodePools, and MicroShift has no
 * machine-config operator at all.
 */
const EXCLUDED_TOPOLOGIES = ['External', 'microshift'];

export function environmentSelector(): EnvironmentSelector {
  return { exclude: EXCLUDED_TOPOLOGIES.map((t) => `topology=="${t}"`).join(' || ') };
}

/**
 * Whether a test runs in the environment the flags describe, as OTE's FilterByEnvironment decides: no flags keep
 * every test; an excluded environment drops it. (Our selectors have no include.)
 */
export function selectedByEnvironment(flags: EnvironmentFlags): boolean {
  return !EXCLUDED_TOPOLOGIES.includes(flags.topology ?? ''); // CEL's == is case-sensitive too
}
