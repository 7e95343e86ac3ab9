/**
 * Watches a cluster's MachineConfigs, MachineConfigPools and ControllerConfigs through the API (client-node, nothing
 * of the reference's internals) and records every event. Judging comes afterwards: the events, ordered by
 * resourceVersion, replay the cluster's history, and every rendered MachineConfig that was created is compared with
 * the upstream render of the inputs the cluster held just before it appeared.
 */
import { CustomObjectsApi, KubeConfig, Watch } from '@kubernetes/client-node';
import { canonicalJson, runOracle, type UpstreamCommit } from './oracle.js';

type Obj = { metadata: { name: string; resourceVersion?: string; annotations?: Record<string, string>; ownerReferences?: Array<{ kind: string; name: string }> }; spec?: Record<string, unknown> };

const GROUP = 'machineconfiguration.openshift.io';
const KINDS = ['machineconfigs', 'machineconfigpools', 'controllerconfigs'] as const;
type Plural = (typeof KINDS)[number];

interface RecordedEvent {
  rv: number;
  plural: Plural;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: Obj;
}

export interface RenderCheck {
  rendered: string;
  pool: string;
  /** How many states back from the creation the matching inputs were (0: the state right before it). */
  matchedStatesBack: number | undefined;
  mismatch?: string;
}

export class RenderObserver {
  private readonly events: RecordedEvent[] = [];
  private readonly initial = new Map<Plural, Obj[]>();
  private readonly aborts: AbortController[] = [];
  private stopped = false;
  private readonly problems: string[] = [];

  constructor(private readonly kubeconfigPath: string) {}

  async start(): Promise<void> {
    const kc = new KubeConfig();
    kc.loadFromFile(this.kubeconfigPath);
    const api = kc.makeApiClient(CustomObjectsApi);
    const watch = new Watch(kc);
    for (const plural of KINDS) {
      const list = (await api.listClusterCustomObject({ group: GROUP, version: 'v1', plural })) as { metadata: { resourceVersion: string }; items: Obj[] };
      this.initial.set(plural, list.items);
      await this.follow(watch, plural, list.metadata.resourceVersion);
    }
  }

  private async follow(watch: Watch, plural: Plural, fromRv: string): Promise<void> {
    let lastRv = fromRv;
    const abort = await watch.watch(
      `/apis/${GROUP}/v1/${plural}`,
      { resourceVersion: fromRv, allowWatchBookmarks: false },
      (type: string, object: Obj) => {
        if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return;
        lastRv = object.metadata.resourceVersion ?? lastRv;
        this.events.push({ rv: Number(object.metadata.resourceVersion), plural, type, object });
      },
      (error: unknown) => {
        if (this.stopped) return;
        if (error) this.problems.push(`watch of ${plural} ended: ${(error as Error).message ?? String(error)}; resumed from ${lastRv}`);
        // a watch the server ends is resumed where it stopped, so no event is lost
        void this.follow(watch, plural, lastRv).catch((e) => this.problems.push(`could not resume the watch of ${plural}: ${(e as Error).message}`));
      },
    );
    this.aborts.push(abort);
  }

  stop(): void {
    this.stopped = true;
    for (const abort of this.aborts) abort.abort();
  }

  /** Watch interruptions seen (they are resumed; listed for the report). */
  notes(): string[] {
    return [...this.problems];
  }

  /** Rendered MachineConfigs the cluster created while observed. */
  createdRendered(): string[] {
    return this.sorted()
      .filter((e) => e.plural === 'machineconfigs' && e.type === 'ADDED' && e.object.metadata.name.startsWith('rendered-'))
      .map((e) => e.object.metadata.name);
  }

  private sorted(): RecordedEvent[] {
    const seen = new Set<string>();
    return [...this.events]
      .sort((a, b) => a.rv - b.rv)
      .filter((e) => {
        const key = `${e.plural}/${e.rv}`;
        return seen.has(key) ? false : (seen.add(key), true);
      });
  }

  /**
   * Compare the rendered MachineConfigs the pools target when observation starts, and every one created while
   * observed, with the oracle's render of the cluster's inputs at that point (for a creation: just before it; when those differ, the earlier states back to the pool's previous rendered config, since the
   * controller renders from its informer's view, which may trail the newest events).
   */
  async judge(codeOf: (controllerConfig: Obj) => UpstreamCommit, window = 12): Promise<RenderCheck[]> {
    const state = new Map<Plural, Map<string, Obj>>(KINDS.map((k) => [k, new Map((this.initial.get(k) ?? []).map((o) => [o.metadata.name, o]))]));
    const snapshots: Array<{ inputs: Obj[]; pools: Map<string, Obj>; cc: Obj | undefined }> = [];
    const snapshot = (): void => {
      snapshots.push({
        inputs: [...state.get('machineconfigs')!.values()].filter((mc) => !mc.metadata.name.startsWith('rendered-')),
        pools: new Map(state.get('machineconfigpools')!),
        cc: state.get('controllerconfigs')!.get('machine-config-controller'),
      });
    };
    snapshot();
    const created: Array<{ rendered: Obj; pool: string; candidates: number[] }> = [];
    // the rendered configs the pools target when observation starts (made when the cluster was set up) must be the
    // render of the inputs then
    for (const pool of state.get('machineconfigpools')!.values()) {
      const target = (pool.spec as { configuration?: { name?: string } } | undefined)?.configuration?.name;
      const rendered = target ? state.get('machineconfigs')!.get(target) : undefined;
      if (rendered) created.push({ rendered, pool: pool.metadata.name, candidates: [0] });
    }
    const lastRenderedAt = new Map<string, number>();
    for (const event of this.sorted()) {
      const name = event.object.metadata.name;
      if (event.plural === 'machineconfigs' && event.type === 'ADDED' && name.startsWith('rendered-')) {
        const pool = event.object.metadata.ownerReferences?.find((o) => o.kind === 'MachineConfigPool')?.name ?? name.replace(/^rendered-(.*)-[0-9a-f]{32}$/, '$1');
        const newest = snapshots.length - 1;
        const oldest = Math.max(lastRenderedAt.get(pool) ?? 0, newest - window);
        const candidates: number[] = [];
        for (let i = newest; i >= oldest; i--) candidates.push(i);
        created.push({ rendered: event.object, pool, candidates });
        lastRenderedAt.set(pool, newest);
      }
      if (event.type === 'DELETED') state.get(event.plural)!.delete(name);
      else state.get(event.plural)!.set(name, event.object);
      if (!(event.plural === 'machineconfigs' && name.startsWith('rendered-'))) snapshot();
    }
    // one oracle batch per upstream commit for every candidate of every creation; each candidate is rendered by the
    // code of its ControllerConfig's release (a 4.12 → 4.13 cluster renders with two)
    const batches = new Map<UpstreamCommit, { inputs: unknown[]; index: Array<{ check: number; back: number }> }>();
    created.forEach((c, check) => {
      c.candidates.forEach((s, back) => {
        const snap = snapshots[s]!;
        const pool = snap.pools.get(c.pool);
        if (!pool || !snap.cc) return;
        const commit = codeOf(snap.cc);
        if (!batches.has(commit)) batches.set(commit, { inputs: [], index: [] });
        const { inputs, index } = batches.get(commit)!;
        inputs.push({
          pools: [pool],
          machineConfigs: snap.inputs,
          controllerConfig: forCommit(snap.cc, commit),
          controllerVersion: c.rendered.metadata.annotations?.['machineconfiguration.openshift.io/generated-by-controller-version'] ?? '',
        });
        index.push({ check, back });
      });
    });
    const answers: Array<{ answer: { error?: string; rendered?: Obj[]; inputError?: string }; check: number; back: number }> = [];
    for (const [commit, { inputs, index }] of batches) {
      const got = await runOracle<{ error?: string; rendered?: Obj[]; inputError?: string }>(commit, 'render', inputs);
      got.forEach((answer, i) => answers.push({ answer, ...index[i]! }));
    }
    // nearest state first, as the candidates were listed
    answers.sort((a, b) => a.check - b.check || a.back - b.back);
    const results: RenderCheck[] = created.map((c) => ({ rendered: c.rendered.metadata.name, pool: c.pool, matchedStatesBack: undefined }));
    const want = (mc: Obj) => canonicalJson({ name: mc.metadata.name, spec: mc.spec, annotations: mc.metadata.annotations ?? {} });
    answers.forEach(({ answer, check, back }) => {
      const result = results[check]!;
      if (result.matchedStatesBack !== undefined) return;
      const upstream = answer.rendered?.[0];
      if (upstream && want(upstream) === want(created[check]!.rendered)) {
        result.matchedStatesBack = back;
        delete result.mismatch;
      } else if (back === 0) {
        result.mismatch = upstream
          ? `upstream renders ${upstream.metadata.name} with annotations ${JSON.stringify(upstream.metadata.annotations)}; the cluster created ${created[check]!.rendered.metadata.name} with ${JSON.stringify(created[check]!.rendered.metadata.annotations)}; the specs differ at ${differences(upstream.spec, created[check]!.rendered.spec).join('; ')}`
          : `upstream refuses the inputs: ${answer.error ?? answer.inputError}`;
      }
    });
    for (const r of results) if (r.matchedStatesBack === undefined && !r.mismatch) r.mismatch = 'no pool or ControllerConfig in the observed state';
    return results;
  }
}

/** The ControllerConfig with its base OS image fields under the names the commit's types use. */
function forCommit(cc: Obj, commit: UpstreamCommit): Obj {
  const spec = { ...(cc.spec ?? {}) };
  const base = spec.baseOSContainerImage ?? spec.baseOperatingSystemContainer;
  const ext = spec.baseOSExtensionsContainerImage ?? spec.baseOperatingSystemExtensionsContainer;
  for (const key of ['baseOSContainerImage', 'baseOperatingSystemContainer', 'baseOSExtensionsContainerImage', 'baseOperatingSystemExtensionsContainer']) delete spec[key];
  spec[commit.baseOSField] = base ?? '';
  spec[commit.baseOSExtensionsField] = ext ?? '';
  return { ...cc, spec };
}

/** Where two JSON values differ: up to five paths, each with both values (shortened), for a mismatch's message. */
function differences(upstream: unknown, cluster: unknown, path = 'spec', out: string[] = []): string[] {
  if (out.length >= 5) return out;
  if (canonicalJson(upstream) === canonicalJson(cluster)) return out;
  if (upstream && cluster && typeof upstream === 'object' && typeof cluster === 'object') {
    const keys = new Set([...Object.keys(upstream), ...Object.keys(cluster)]);
    for (const key of keys) differences((upstream as Record<string, unknown>)[key], (cluster as Record<string, unknown>)[key], `${path}.${key}`, out);
    return out;
  }
  const show = (v: unknown): string => (JSON.stringify(v) ?? 'absent').slice(0, 160);
  out.push(`${path}: upstream ${show(upstream)}, cluster ${show(cluster)}`);
  return out;
}
