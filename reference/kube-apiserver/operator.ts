/**
 * The kube-apiserver ClusterOperator as its operator reports it, for the one thing of it an upgrade of a layered pool
 * meets: the kubelet skew rule (kubelet-skew.ts) behind its Upgradeable condition. Available, Progressing and Degraded
 * stay as a settled control plane reports them; the versions follow the release the CVO applies (the kube-apiserver's
 * run level, 20, comes long before the MCO's 80, so on an upgrade the API server is new before any node is).
 *
 * The reference runs this controller in the CVO's process: it has no pod or log of its own.
 */
import type { V1Node } from '@kubernetes/client-node';
import { CONFIG_API_VERSION } from '../constants.js';
import type { Controller, ControllerContext } from '../context.js';
import type { KubeObject } from '../../lib/kube/client.js';
import type { Informer } from '../../lib/kube/informer.js';
import { SyncLoop } from '../kube/sync-loop.js';
import { setOperatorCondition } from '../mco/operator-status.js';
import type { Condition } from '../mco/types.js';
import { mcoAt } from '../profiles/profile.js';
import { semanticEqual } from '../equality.js';
import { kubeletSkewCondition, upgradeableOf } from './kubelet-skew.js';

export const KUBE_APISERVER_CO = 'kube-apiserver';

type Node = V1Node & KubeObject;
interface ClusterVersion extends KubeObject {
  status?: { desired?: { version?: string } };
}
interface ClusterOperator extends KubeObject {
  status?: { conditions?: Condition[]; versions?: Array<{ name: string; version: string }> };
}

/** The Kubernetes release of an OpenShift 4 minor's API server (4.N ships 1.(N+13)). */
export function apiServerVersionOf(openshiftVersion: string): { minor: number; kubernetes: string } | undefined {
  const m = /^4\.(\d+)\./.exec(openshiftVersion);
  return m ? { minor: Number(m[1]), kubernetes: `1.${Number(m[1]) + 13}.0` } : undefined;
}

export class KubeApiServerOperator implements Controller {
  private nodes!: Informer<Node>;
  private cvs!: Informer<ClusterVersion>;
  private cos!: Informer<ClusterOperator>;
  private readonly loop: SyncLoop;

  constructor(private readonly ctx: ControllerContext) {
    this.loop = new SyncLoop({ clock: ctx.clock, signal: ctx.signal, sync: () => this.sync(), batchWallMs: 20, log: (l) => ctx.log('cvo', l) });
  }

  setup(): void {
    this.nodes = this.ctx.informers.for<Node>('Node');
    this.cvs = this.ctx.informers.for<ClusterVersion>('ClusterVersion');
    this.cos = this.ctx.informers.for<ClusterOperator>('ClusterOperator');
    // only what the rule reads: a node's kubelet version, the release applied, our own object
    this.nodes.onChange(() => this.loop.trigger());
    this.cvs.onChange(() => this.loop.trigger());
    this.cos.onChange((_t, co) => {
      if (co.metadata.name === KUBE_APISERVER_CO) this.loop.trigger();
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async sync(): Promise<void> {
    const { client, clock, profile } = this.ctx;
    const version = this.cvs.get('version')?.status?.desired?.version;
    const api = version ? apiServerVersionOf(version) : undefined;
    if (!version || !api) return;
    const kubelets = this.nodes.list().map((n) => ({ node: n.metadata!.name!, kubeletVersion: n.status?.nodeInfo?.kubeletVersion ?? '' }));
    // fault kas-ignores-kubelet-skew: every kubelet taken for the API server's own
    const judged = this.ctx.deviations.kubeApiServerIgnoresKubeletSkew ? kubelets.map((k) => ({ ...k, kubeletVersion: `v${api.kubernetes}` })) : kubelets;
    const skew = kubeletSkewCondition(judged, api.kubernetes, api.minor, mcoAt(profile, version).kubeApiServerOperator.skewWording);
    let existing = this.cos.get(KUBE_APISERVER_CO);
    if (!existing) {
      await client.apply('ClusterOperator', { apiVersion: CONFIG_API_VERSION, kind: 'ClusterOperator', metadata: { name: KUBE_APISERVER_CO }, spec: {} });
      existing = { metadata: { name: KUBE_APISERVER_CO } } as ClusterOperator;
    }
    const now = clock.timestamp();
    let conditions = existing.status?.conditions ?? [];
    const active = this.nodes.list().filter((n) => n.metadata?.labels?.['node-role.kubernetes.io/master'] !== undefined).length;
    conditions = setOperatorCondition(conditions, { type: 'Degraded', status: 'False', reason: 'AsExpected', message: 'NodeControllerDegraded: All master nodes are ready' }, now);
    conditions = setOperatorCondition(conditions, { type: 'Progressing', status: 'False', reason: 'AsExpected', message: `NodeInstallerProgressing: ${active} nodes are at revision 12` }, now);
    conditions = setOperatorCondition(conditions, { type: 'Available', status: 'True', reason: 'AsExpected', message: `StaticPodsAvailable: ${active} nodes are active; ${active} nodes are at revision 12` }, now);
    conditions = setOperatorCondition(conditions, upgradeableOf(skew), now);
    const versions = [
      { name: 'raw-internal', version },
      { name: 'kube-apiserver', version: api.kubernetes },
      { name: 'operator', version },
    ];
    const status = { ...(existing.status ?? {}), conditions, versions };
    if (semanticEqual(status, existing.status)) return;
    await client.patchStatus('ClusterOperator', KUBE_APISERVER_CO, status);
  }
}
