/**
 * For which CPU architectures a spec's layered image is built: those of the nodes of the pools it puts the image on.
 * The same rule serves the launcher, which checks before any cluster time that the engine can build each of them
 * (bin/run/preflight/build-architectures.ts), and the spec, which builds them (flows.ts buildCustomOsImage); so a run
 * never gets past the check to meet a build the engine cannot make.
 */
import type { PoolNeeds } from './plan/pool-plan.js';

/** What a spec declares that tells its build's pools (ConformanceOptions, or DeclaredCase as the listing reads it). */
export interface BuildRolesDeclaration {
  pools?: PoolNeeds;
  nodesIn?: readonly string[];
}

/**
 * The roles whose pools run the spec's layered image: the roles its pools declare `layered` or `suite` (none: the spec builds
 * nothing); a spec that declares no pools overrides the roles it needs nodes in, else (it says nothing) both.
 */
export function buildRoles(declared: BuildRolesDeclaration): string[] {
  if (declared.pools) return Object.entries(declared.pools).filter(([, need]) => need?.image === 'layered' || need?.image === 'suite').map(([role]) => role);
  return [...(declared.nodesIn ?? ['master', 'worker'])];
}

/** A node as far as the build cares: its name, its roles (`node-role.kubernetes.io/<role>`) and architecture. */
export interface ArchNode {
  name: string;
  roles: readonly string[];
  architecture: string;
}

const ROLE = 'node-role.kubernetes.io/';

/** A Node's architecture as its kubelet reports it (`kubernetes.io/arch`, then status.nodeInfo); amd64 where neither says. */
export function nodeArchitectureOf(node: { metadata?: { labels?: Record<string, string> }; status?: { nodeInfo?: { architecture?: string } } }): string {
  return node.metadata?.labels?.['kubernetes.io/arch'] || node.status?.nodeInfo?.architecture || 'amd64';
}

export function archNodeOf(node: { metadata?: { name?: string; labels?: Record<string, string> }; status?: { nodeInfo?: { architecture?: string } } }): ArchNode {
  const labels = node.metadata?.labels ?? {};
  const roles = Object.keys(labels).filter((k) => k.startsWith(ROLE)).map((k) => k.slice(ROLE.length));
  return { name: node.metadata?.name ?? '?', roles, architecture: nodeArchitectureOf(node) };
}

/** The architectures of `nodes`, in a stable order (amd64 first, as the index lists them), each with its nodes. */
export function architecturesOf(nodes: Iterable<ArchNode>): Map<string, string[]> {
  const byArch = new Map<string, string[]>();
  for (const node of nodes) byArch.set(node.architecture, [...(byArch.get(node.architecture) ?? []), node.name]);
  return new Map([...byArch].sort(([a], [b]) => (a === 'amd64' ? -1 : b === 'amd64' ? 1 : a.localeCompare(b))));
}
