/**
 * The reference's slice of kube-controller-manager and of the component installers: it keeps the components'
 * Deployments and DaemonSet at the release each component runs, and does what the deployment, replica-set and
 * daemon-set controllers (and the scheduler, for their pods) do for them:
 *   - Deployment: one ReplicaSet per pod template (`<name>-<pod-template-hash>`); on a new template the new set is
 *     scaled up and the old one scaled down once the new pod is Ready (maxSurge 1, maxUnavailable 0 for 1 replica);
 *   - ReplicaSet: creates and deletes pods to its replica count, each bound to a matching schedulable node;
 *   - DaemonSet: one pod on every matching node; a new template replaces pods a few nodes at a time (maxUnavailable).
 * Which release each component runs: the operator, what the CVO deployed (ConfigMap machine-config-operator-
 * deployment); the controller and the daemons, what the operator last rolled out (the ControllerConfig's
 * release-image-version); the CVO, ClusterVersion's desired release.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { ANN, CONTROLLER_CONFIG_NAME, CV_NAME, MCO_DEPLOYMENT_CONFIGMAP } from '../constants.js';
import type { Controller, ControllerContext } from '../context.js';
import { semanticEqual } from '../equality.js';
import { templateHash } from './pod-names.js';
import { chooseNode, matchesSelector } from './scheduling.js';
import type { KubeObject } from '../../lib/kube/client.js';
import type { Informer } from '../../lib/kube/informer.js';
import type { Kind } from '../../lib/kube/kinds.js';
import {
  MCO_NAMESPACE,
  clusterVersionOperator,
  machineConfigController,
  machineConfigDaemon,
  machineConfigOperator,
  type Release,
  type WorkloadSpec,
} from './components.js';

type Obj = KubeObject & { spec?: any; status?: any };
type Pod = V1Pod & KubeObject;
type Node = V1Node & KubeObject;

const HASH_LABEL = 'pod-template-hash';
const DS_HASH_LABEL = 'controller-revision-hash';
const BATCH = 20;

function ownerRef(owner: Obj, kind: string): Record<string, unknown> {
  return { apiVersion: 'apps/v1', kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
}

function ownedBy(obj: KubeObject, uid: string | undefined): boolean {
  return !!uid && (obj.metadata.ownerReferences ?? []).some((r) => r.uid === uid && r.controller);
}

function podReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

function percentOf(value: unknown, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  const m = /^(\d+)%$/.exec(String(value ?? '25%'));
  const exact = (Number(m?.[1] ?? 25) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** The fields of a kind this controller reads: a change elsewhere in the object does not wake it. */
const SIGNATURES: Partial<Record<Kind, (o: Obj) => string>> = {
  Node: (n) => JSON.stringify([n.metadata.labels, n.spec?.unschedulable ?? false, (n.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Ready')?.status]),
  ClusterVersion: (cv) => JSON.stringify(cv.status?.desired ?? null),
  ControllerConfig: (cc) => cc.metadata.annotations?.[ANN.releaseImageVersion] ?? '',
};

export class WorkloadController implements Controller {
  private readonly informers: Record<string, Informer<Obj>> = {};
  private running?: Promise<void>;
  private dirty = false;
  private timer?: NodeJS.Timeout;
  /** Pods this controller created or deleted that its cache does not show yet (the real controllers' expectations). */
  private readonly created = new Map<string, Pod>();
  private readonly deleted = new Set<string>();
  /** Last seen signature of the objects whose other changes this controller ignores (SIGNATURES). */
  private readonly seen = new Map<string, string>();

  constructor(
    private readonly ctx: ControllerContext,
    private readonly releases: Release[],
  ) {}

  setup(): void {
    const kinds: Kind[] = ['Deployment', 'ReplicaSet', 'DaemonSet', 'Pod', 'Node', 'ControllerConfig', 'ClusterVersion'];
    for (const kind of kinds) {
      const informer = this.ctx.informers.for<Obj>(kind);
      const signature = SIGNATURES[kind];
      informer.onChange((type, obj) => {
        // nodes and ClusterVersion change all the time during an update; only some of their fields matter here
        if (signature && type !== 'delete') {
          const key = `${kind}/${obj.metadata.name}`;
          const now = signature(obj);
          if (this.seen.get(key) === now) return;
          this.seen.set(key, now);
        }
        this.kick();
      });
      this.informers[kind] = informer;
    }
    const cms = this.ctx.informers.for<Obj>('ConfigMap', MCO_NAMESPACE);
    cms.onChange(() => this.kick());
    this.informers.ConfigMap = cms;
  }

  start(): void {
    this.kick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  private kick(): void {
    if (this.ctx.signal.aborted) return;
    if (this.running) {
      this.dirty = true;
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.ctx.clock.busyDuring(() => this.syncAll())
        .catch((error) => {
          this.ctx.log('workloads', `sync failed: ${(error as Error).message}`);
          // an API failure the client could not ride out: look again soon, as a controller's requeue does
          if (!this.ctx.signal.aborted) setTimeout(() => this.kick(), 250).unref();
        })
        .finally(() => {
          this.running = undefined;
          if (this.dirty) {
            this.dirty = false;
            this.kick();
          }
        });
    }, 10);
  }

  private list<T extends Obj>(kind: string): T[] {
    return this.informers[kind]!.list() as T[];
  }

  private async syncAll(): Promise<void> {
    await this.applyComponents();
    for (const d of this.list('Deployment')) await this.syncDeployment(d);
    for (const rs of this.list('ReplicaSet')) await this.syncReplicaSet(rs);
    for (const ds of this.list('DaemonSet')) await this.syncDaemonSet(ds);
  }

  // ---- which release each component runs ----

  private releaseOf(version: string | undefined): Release | undefined {
    return this.releases.find((r) => r.version === version);
  }

  private desiredComponents(): WorkloadSpec[] {
    const cm = this.informers.ConfigMap!.get(MCO_DEPLOYMENT_CONFIGMAP, MCO_NAMESPACE) as Obj & { data?: Record<string, string> } | undefined;
    const operator = cm?.data?.RELEASE_VERSION ? { version: cm.data.RELEASE_VERSION, image: cm.data.RELEASE_IMAGE ?? this.releaseOf(cm.data.RELEASE_VERSION)?.image ?? '' } : this.releases[0]!;
    const cc = this.informers.ControllerConfig!.get(CONTROLLER_CONFIG_NAME);
    const rolledOut = this.releaseOf(cc?.metadata.annotations?.[ANN.releaseImageVersion]) ?? this.releases[0]!;
    const cv = this.informers.ClusterVersion!.get(CV_NAME);
    const desired = cv?.status?.desired as Release | undefined;
    const cvo = desired?.image ? { version: desired.version, image: desired.image } : this.releases[0]!;
    return [machineConfigOperator(operator), machineConfigController(rolledOut), machineConfigDaemon(rolledOut), clusterVersionOperator(cvo)];
  }

  private async applyComponents(): Promise<void> {
    for (const spec of this.desiredComponents()) {
      const existing = this.informers[spec.kind]!.get(spec.name, spec.namespace);
      if (!existing) {
        await this.ctx.client.create(spec.kind, spec.object).catch((e) => {
          if ((e as { status?: number }).status !== 409) throw e;
        });
        continue;
      }
      const template = (spec.object.spec as { template: unknown }).template;
      if (!semanticEqual(existing.spec?.template, template)) {
        await this.ctx.client.patch(spec.kind, spec.name, { spec: { template } }, spec.namespace);
      }
    }
  }

  // ---- Deployment → ReplicaSet ----

  private async syncDeployment(d: Obj): Promise<void> {
    const { client } = this.ctx;
    const ns = d.metadata.namespace!;
    const replicas = d.spec?.replicas ?? 1;
    const hash = templateHash(d.spec?.template);
    const owned = this.list('ReplicaSet').filter((rs) => ownedBy(rs, d.metadata.uid));
    const current = owned.find((rs) => rs.metadata.labels?.[HASH_LABEL] === hash);
    const revision = 1 + Math.max(0, ...owned.map((rs) => Number(rs.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0)));
    if (!current) {
      const labels = { ...(d.spec?.template?.metadata?.labels ?? {}), [HASH_LABEL]: hash };
      await client.create('ReplicaSet', {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name: `${d.metadata.name}-${hash}`,
          namespace: ns,
          labels,
          annotations: { 'deployment.kubernetes.io/revision': String(revision), 'deployment.kubernetes.io/desired-replicas': String(replicas), 'deployment.kubernetes.io/max-replicas': String(replicas + 1) },
          ownerReferences: [ownerRef(d, 'Deployment') as never],
        },
        spec: {
          replicas,
          selector: { matchLabels: { ...(d.spec?.selector?.matchLabels ?? {}), [HASH_LABEL]: hash } },
          template: { ...d.spec.template, metadata: { ...(d.spec.template.metadata ?? {}), labels } },
        },
      }).catch((e) => {
        if ((e as { status?: number }).status !== 409) throw e;
      });
      return; // the new set shows up in the cache and wakes this sync again
    }
    if ((current.spec?.replicas ?? 1) !== replicas) await client.patch('ReplicaSet', current.metadata.name!, { spec: { replicas } }, ns);
    const newReady = current.status?.readyReplicas ?? 0;
    for (const old of owned) {
      if (old === current || (old.spec?.replicas ?? 1) === 0) continue;
      // rolling update: the old pods go only once the new ones serve (maxUnavailable 0 for a single replica)
      if (newReady >= replicas) await client.patch('ReplicaSet', old.metadata.name!, { spec: { replicas: 0 } }, ns);
    }
    const sum = (f: (rs: Obj) => number): number => owned.reduce((n, rs) => n + f(rs), 0);
    const available = sum((rs) => rs.status?.availableReplicas ?? 0);
    const status = {
      observedGeneration: d.metadata.generation,
      replicas: sum((rs) => rs.status?.replicas ?? 0),
      updatedReplicas: current.status?.replicas ?? 0,
      readyReplicas: sum((rs) => rs.status?.readyReplicas ?? 0),
      availableReplicas: available,
      unavailableReplicas: Math.max(0, replicas - available),
      conditions: [
        available >= replicas
          ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
          : { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
        newReady >= replicas && sum((rs) => rs.status?.replicas ?? 0) === replicas
          ? { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${current.metadata.name}" has successfully progressed.` }
          : { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: `ReplicaSet "${current.metadata.name}" is progressing.` },
      ],
    };
    await this.writeStatus('Deployment', d, status);
  }

  // ---- ReplicaSet → Pods ----

  private podsOf(owner: Obj): Pod[] {
    const fromCache = this.list<Pod>('Pod');
    const seen = new Set(fromCache.map((p) => `${p.metadata.namespace}/${p.metadata.name}`));
    for (const key of [...this.created.keys()]) if (seen.has(key)) this.created.delete(key);
    for (const key of [...this.deleted]) if (!seen.has(key)) this.deleted.delete(key);
    return [...fromCache, ...this.created.values()].filter(
      (p) => ownedBy(p, owner.metadata.uid) && !p.metadata.deletionTimestamp && !this.deleted.has(`${p.metadata.namespace}/${p.metadata.name}`),
    );
  }

  private async syncReplicaSet(rs: Obj): Promise<void> {
    const want = rs.spec?.replicas ?? 1;
    const pods = this.podsOf(rs);
    if (pods.length < want) {
      const nodes = this.list<Node>('Node');
      for (let i = pods.length; i < want; i++) {
        // spread: the node with the fewest pods of this set, then by name
        const node = chooseNode(nodes, rs.spec?.template?.spec, (n) => pods.filter((p) => p.spec?.nodeName === n.metadata.name).length);
        if (!node) break;
        pods.push(await this.createPod(rs, 'ReplicaSet', node.metadata.name!, {}));
      }
    } else if (pods.length > want) {
      const extra = [...pods].sort((a, b) => Number(podReady(a)) - Number(podReady(b)) || String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)));
      for (const pod of extra.slice(0, pods.length - want)) await this.deletePod(pod);
    }
    const live = this.podsOf(rs);
    const ready = live.filter(podReady).length;
    await this.writeStatus('ReplicaSet', rs, { observedGeneration: rs.metadata.generation, replicas: live.length, fullyLabeledReplicas: live.length, readyReplicas: ready, availableReplicas: ready });
  }

  // ---- DaemonSet → Pods ----

  private async syncDaemonSet(ds: Obj): Promise<void> {
    const hash = templateHash(ds.spec?.template);
    const nodes = this.list<Node>('Node').filter((n) => matchesSelector(n, ds.spec?.template?.spec?.nodeSelector));
    const pods = this.podsOf(ds);
    const byNode = new Map<string, Pod[]>();
    for (const p of pods) byNode.set(p.spec?.nodeName ?? '', [...(byNode.get(p.spec?.nodeName ?? '') ?? []), p]);
    const missing = nodes.filter((n) => !byNode.get(n.metadata.name!)?.length);
    for (let i = 0; i < missing.length; i += BATCH) {
      await Promise.all(missing.slice(i, i + BATCH).map((n) => this.createPod(ds, 'DaemonSet', n.metadata.name!, { [DS_HASH_LABEL]: hash, 'pod-template-generation': String(ds.metadata.generation ?? 1) })));
    }
    // rolling update: replace old pods while no more than maxUnavailable nodes are without a ready pod
    const unavailable = nodes.filter((n) => !(byNode.get(n.metadata.name!) ?? []).some(podReady)).length;
    const budget = Math.max(1, percentOf(ds.spec?.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1, nodes.length, false)) - unavailable;
    const stale = pods.filter((p) => p.metadata.labels?.[DS_HASH_LABEL] !== hash);
    for (const pod of stale.slice(0, Math.max(0, budget))) await this.deletePod(pod);
    const live = this.podsOf(ds);
    // by node once: a thousand nodes make a pods × nodes scan too slow to run on every pod event
    const liveOn = new Map<string, Pod[]>();
    for (const p of live) liveOn.set(p.spec?.nodeName ?? '', [...(liveOn.get(p.spec?.nodeName ?? '') ?? []), p]);
    const onNodes = nodes.filter((n) => liveOn.has(n.metadata.name!));
    const ready = nodes.filter((n) => (liveOn.get(n.metadata.name!) ?? []).some(podReady)).length;
    await this.writeStatus('DaemonSet', ds, {
      observedGeneration: ds.metadata.generation,
      desiredNumberScheduled: nodes.length,
      currentNumberScheduled: onNodes.length,
      numberMisscheduled: 0,
      numberReady: ready,
      numberAvailable: ready,
      numberUnavailable: nodes.length - ready,
      updatedNumberScheduled: live.filter((p) => p.metadata.labels?.[DS_HASH_LABEL] === hash).length,
    });
  }

  // ---- writes ----

  private async createPod(owner: Obj, kind: 'ReplicaSet' | 'DaemonSet', nodeName: string, extraLabels: Record<string, string>): Promise<Pod> {
    const template = owner.spec?.template ?? {};
    const prefix = kind === 'DaemonSet' ? `${owner.metadata.name}-` : `${owner.metadata.name}-`;
    const pod = await this.ctx.client.create<Pod>('Pod', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        generateName: prefix,
        namespace: owner.metadata.namespace,
        labels: { ...(template.metadata?.labels ?? {}), ...extraLabels },
        annotations: { ...(template.metadata?.annotations ?? {}) },
        ownerReferences: [ownerRef(owner, kind) as never],
      },
      spec: { ...(template.spec ?? {}), nodeName },
    } as Pod);
    this.created.set(`${pod.metadata.namespace}/${pod.metadata.name}`, pod);
    return pod;
  }

  private async deletePod(pod: Pod): Promise<void> {
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    this.deleted.add(key);
    this.created.delete(key);
    await this.ctx.client.delete('Pod', pod.metadata.name!, pod.metadata.namespace);
  }

  private async writeStatus(kind: Kind, obj: Obj, status: Record<string, unknown>): Promise<void> {
    const current = obj.status ?? {};
    const changed = Object.entries(status).some(([k, v]) => !semanticEqual(current[k], v));
    if (!changed) return;
    await this.ctx.client.patchStatus(kind, obj.metadata.name!, status, obj.metadata.namespace).catch((e) => {
      if ((e as { status?: number }).status !== 404) throw e;
    });
  }
}
