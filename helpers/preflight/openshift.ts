/**
 * Is the target an OpenShift cluster the suite can judge? It must have a ClusterVersion that names a current version,
 * the machine-config operator's kinds with the master and worker pools, and nodes that carry roles. Everything that is
 * missing is named in one message; failures that are not "missing" (refused credentials, no answer) are thrown as
 * they are, for the caller to tell apart.
 */
import { isNotFound } from '../../lib/kube/errors.js';
import type { Cluster } from '../cluster.js';
import type { ClusterVersion, MachineConfigPool, Node } from '../types.js';
import { currentVersion } from '../facts/cluster-version.js';

export interface OpenShiftFacts {
  version: string;
  nodes: number;
  /** Nodes per role (`node-role.kubernetes.io/<role>`). */
  roles: Record<string, number>;
  pools: string[];
}

export class NotOpenShiftError extends Error {
  constructor(
    readonly apiUrl: string,
    readonly missing: string[],
  ) {
    super(`${apiUrl} does not look like an OpenShift cluster: ${missing.join('; ')}`);
    this.name = 'NotOpenShiftError';
  }
}

const REQUIRED_POOLS = ['master', 'worker'];
const ROLE_LABEL = 'node-role.kubernetes.io/';

/** Reads a kind; a kind or object that is not there is `undefined`, anything else is thrown. */
async function unlessMissing<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export function nodeRoles(nodes: Node[]): Record<string, number> {
  const roles: Record<string, number> = {};
  for (const node of nodes) {
    for (const label of Object.keys(node.metadata?.labels ?? {})) {
      if (label.startsWith(ROLE_LABEL)) roles[label.slice(ROLE_LABEL.length)] = (roles[label.slice(ROLE_LABEL.length)] ?? 0) + 1;
    }
  }
  return roles;
}

export async function checkOpenShift(cluster: Cluster): Promise<OpenShiftFacts> {
  const [cv, pools, nodes] = await Promise.all([
    unlessMissing<ClusterVersion>(() => cluster.getClusterVersion()),
    unlessMissing<MachineConfigPool[]>(() => cluster.listMachineConfigPools()),
    cluster.listNodes(),
  ]);
  const missing: string[] = [];
  const version = cv ? currentVersion(cv) : undefined;
  if (!cv) missing.push('no ClusterVersion "version" (config.openshift.io/v1)');
  else if (!version) missing.push('ClusterVersion "version" names no current version (no Completed history entry, no status.desired)');
  const poolNames = (pools ?? []).map((p) => p.metadata.name!);
  if (!pools) missing.push('no MachineConfigPool kind (machineconfiguration.openshift.io/v1: the machine-config operator is not installed)');
  else {
    const absent = REQUIRED_POOLS.filter((p) => !poolNames.includes(p));
    if (absent.length) missing.push(`no machine-config pool ${absent.join(' or ')}`);
  }
  const roles = nodeRoles(nodes);
  if (nodes.length === 0) missing.push('no nodes');
  else if (Object.keys(roles).length === 0) missing.push(`none of its ${nodes.length} nodes has a role (${ROLE_LABEL}<role> label)`);
  if (missing.length) throw new NotOpenShiftError(cluster.apiUrl, missing);
  return { version: version!, nodes: nodes.length, roles, pools: poolNames };
}
