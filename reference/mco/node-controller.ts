/**
 * Node controller: computes each pool's status from its nodes and points the next nodes (maxUnavailable, zone and
 * age order) at the pool's target rendered config through the desiredConfig annotation.
 */
import type { V1Node } from '@kubernetes/client-node';
import { ANN } from '../constants.js';
import type { Controller, ControllerContext } from '../context.js';
import type { KubeObject } from '../../lib/kube/client.js';
import type { Informer } from '../../lib/kube/informer.js';
import { WorkQueue } from '../kube/workqueue.js';
import { calculateStatus, chooseCandidates, isConditionTrue, poolForNode } from './node-status.js';
import type { MachineConfigPool } from './types.js';
import { semanticEqual } from '../equality.js';

type Pool = MachineConfigPool & KubeObject;
type Node = V1Node & KubeObject;

const COMPONENT = 'machineconfigcontroller-nodecontroller';

export class NodeController implements Controller {
  private pools!: Informer<Pool>;
  private nodes!: Informer<Node>;
  private readonly queue: WorkQueue;
  /**
   * desiredConfig values this controller wrote that the cache may not show yet. Without them a sync right after a
   * write would see the old value and point more nodes than maxUnavailable allows.
   */
  private readonly pendingDesired = new Map<string, string>();

  constructor(private readonly ctx: ControllerContext) {
    this.queue = new WorkQueue((pool) => this.sync(pool), { name: 'node-controller', signal: ctx.signal, clock: ctx.clock, batchWallMs: 15, log: (l) => ctx.log('node-controller', l) });
  }

  setup(): void {
    this.pools = this.ctx.informers.for<Pool>('MachineConfigPool');
    this.nodes = this.ctx.informers.for<Node>('Node');
    this.pools.onChange((type, pool) => {
      if (type !== 'delete') this.queue.add(pool.metadata.name!);
    });
    this.nodes.onChange((_type, node) => {
      const pending = this.pendingDesired.get(node.metadata!.name!);
      if (pending !== undefined && node.metadata?.annotations?.[ANN.desiredConfig] === pending) this.pendingDesired.delete(node.metadata!.name!);
      try {
        const pool = poolForNode(node, this.pools.list());
        if (pool) this.queue.add(pool.metadata.name!);
      } catch (error) {
        this.ctx.log('node-controller', (error as Error).message);
      }
    });
  }

  start(): void {
    for (const pool of this.pools.list()) this.queue.add(pool.metadata.name!);
    this.queue.start();
  }

  async stop(): Promise<void> {
    await this.queue.idle();
  }

  private nodesOf(pool: Pool): Node[] {
    const pools = this.pools.list();
    const out: Node[] = [];
    for (const cached of this.nodes.list()) {
      let owner: MachineConfigPool | undefined;
      try {
        owner = poolForNode(cached, pools);
      } catch {
        continue;
      }
      if (owner?.metadata.name !== pool.metadata.name) continue;
      const pending = this.pendingDesired.get(cached.metadata!.name!);
      out.push(
        pending !== undefined && cached.metadata?.annotations?.[ANN.desiredConfig] !== pending
          ? ({ ...cached, metadata: { ...cached.metadata, annotations: { ...cached.metadata?.annotations, [ANN.desiredConfig]: pending } } } as Node)
          : cached,
      );
    }
    return out;
  }

  private async sync(poolName: string): Promise<void> {
    const { client, clock } = this.ctx;
    const cached = this.pools.get(poolName);
    if (!cached) return;
    const now = clock.timestamp();
    let before: MachineConfigPool['status'];
    let after: MachineConfigPool['status'];
    await client.updateStatus<Pool>(
      'MachineConfigPool',
      poolName,
      (current) => {
        const status = calculateStatus(current, this.nodesOf(current), now);
        before = current.status;
        after = status;
        return semanticEqual(status, current.status) ? undefined : status;
      },
      cached,
    );
    this.recordTransitions(cached, before, after, now);
    const pool = this.pools.get(poolName) ?? cached;
    if (pool.spec.paused) return;
    const target = pool.spec.configuration?.name;
    if (!target) return;
    const candidates = chooseCandidates(pool, this.nodesOf(pool));
    if (candidates.length === 0) return;
    await Promise.all(
      candidates.map(async (node) => {
        const name = node.metadata!.name!;
        this.pendingDesired.set(name, target);
        try {
          await client.patch('Node', name, { metadata: { annotations: { [ANN.desiredConfig]: target } } });
        } catch (error) {
          this.pendingDesired.delete(name);
          throw error;
        }
      }),
    );
    const message = candidates.length === 1 ? `Targeted node ${candidates[0]!.metadata!.name} to config ${target}` : `Set target for ${candidates.length} nodes to config ${target}`;
    await client.event({ kind: 'MachineConfigPool', name: poolName, uid: pool.metadata.uid }, 'Normal', 'SetDesiredConfig', message, COMPONENT, now);
  }

  private recordTransitions(pool: Pool, before: MachineConfigPool['status'], after: MachineConfigPool['status'], now: string): void {
    if (!after) return;
    const name = pool.metadata.name!;
    const target = pool.spec.configuration?.name ?? '';
    const involved = { kind: 'MachineConfigPool', name, uid: pool.metadata.uid };
    if (isConditionTrue(after.conditions, 'Updating') && !isConditionTrue(before?.conditions, 'Updating')) {
      void this.ctx.client.event(involved, 'Normal', 'Updating', `Pool ${name} now targeting ${target}`, COMPONENT, now);
    }
    if (isConditionTrue(after.conditions, 'Updated') && !isConditionTrue(before?.conditions, 'Updated')) {
      void this.ctx.client.event(involved, 'Normal', 'Completed', `Pool ${name} has completed update to ${target}`, COMPONENT, now);
    }
  }
}
