/**
 * Discovery documents (/version, /api, /api/v1, /apis, /apis/G, /apis/G/V) built from the resource registry and
 * cached until the registry changes (a CRD created, updated or deleted).
 */
import type { ResourceRegistry, ResourceType } from './resources.js';

/** The Kubernetes version this server claims: the one OpenShift 4.12 ships. */
export const SERVER_VERSION = {
  major: '1',
  minor: '25',
  gitVersion: 'v1.25.0-ocp-e2e-mock',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2022-09-01T00:00:00Z',
  goVersion: 'go1.19',
  compiler: 'gc',
  platform: `linux/${process.arch === 'x64' ? 'amd64' : process.arch}`,
};

/** Kubernetes version priority: v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > anything else (alphabetical). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = v.match(/^v(\d+)(?:(alpha|beta)(\d+))?$/);
    if (!m) return [0, 0, 0, v] as const;
    return [1, m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1, Number(m[1]) * 1000 + Number(m[3] ?? 0), v] as const;
  };
  const pa = parse(a), pb = parse(b);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pb[i] as number) - (pa[i] as number);
  return a.localeCompare(b);
}

function resourceEntries(rt: ResourceType): Array<Record<string, unknown>> {
  const main: Record<string, unknown> = {
    name: rt.plural, singularName: rt.singular, namespaced: rt.namespaced, kind: rt.kind, verbs: rt.verbs,
  };
  if (rt.shortNames.length) main.shortNames = rt.shortNames;
  if (rt.categories.length) main.categories = rt.categories;
  const out = [main];
  if (rt.statusSubresource) out.push({ name: `${rt.plural}/status`, singularName: '', namespaced: rt.namespaced, kind: rt.kind, verbs: ['get', 'patch', 'update'] });
  if (rt.builtin && rt.group === '' && rt.plural === 'pods') {
    // the streaming subresources kube-apiserver lists for pods, with the kinds it gives them
    out.push({ name: 'pods/attach', singularName: '', namespaced: true, kind: 'PodAttachOptions', verbs: ['create', 'get'] });
    out.push({ name: 'pods/exec', singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] });
    out.push({ name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] });
  }
  return out;
}

export class Discovery {
  private cache = new Map<string, string>();

  constructor(private readonly registry: ResourceRegistry) {
    registry.onChange(() => this.cache.clear());
  }

  private memo(key: string, build: () => unknown): string | undefined {
    let v = this.cache.get(key);
    if (v === undefined) {
      const doc = build();
      if (doc === undefined) return undefined;
      v = JSON.stringify(doc);
      this.cache.set(key, v);
    }
    return v;
  }

  /** Groups (other than core) with their versions, preferred first. */
  private groups(): Map<string, string[]> {
    const groups = new Map<string, Set<string>>();
    for (const rt of this.registry.all()) {
      if (!rt.group) continue;
      if (!groups.has(rt.group)) groups.set(rt.group, new Set());
      groups.get(rt.group)!.add(rt.version);
    }
    return new Map([...groups].sort(([a], [b]) => a.localeCompare(b)).map(([g, vs]) => [g, [...vs].sort(compareVersions)]));
  }

  private group(name: string, versions: string[]): Record<string, unknown> {
    const list = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
    return { name, versions: list, preferredVersion: list[0] };
  }

  coreVersions(serverAddress: string): string {
    return this.memo(`api:${serverAddress}`, () => ({
      kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
    }))!;
  }

  groupList(): string {
    return this.memo('apis', () => ({
      kind: 'APIGroupList', apiVersion: 'v1',
      groups: [...this.groups()].map(([name, versions]) => this.group(name, versions)),
    }))!;
  }

  groupDoc(name: string): string | undefined {
    return this.memo(`group:${name}`, () => {
      const versions = this.groups().get(name);
      return versions ? { kind: 'APIGroup', apiVersion: 'v1', ...this.group(name, versions) } : undefined;
    });
  }

  /** APIResourceList of one group/version ("" group for /api/v1), or undefined when nothing is served there. */
  resourceList(group: string, version: string): string | undefined {
    return this.memo(`rl:${group}/${version}`, () => {
      const types = this.registry.all().filter((rt) => rt.group === group && rt.version === version)
        .sort((a, b) => a.plural.localeCompare(b.plural));
      if (!types.length) return undefined;
      return {
        kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version,
        resources: types.flatMap(resourceEntries),
      };
    });
  }
}
