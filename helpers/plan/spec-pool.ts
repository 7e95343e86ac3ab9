/**
 * A custom pool of one worker for a spec that changes a pool in ways no other spec may see (image mode): the pool the
 * run's plan gave the spec's worker role when it is a custom one, else one the spec makes for itself with the same
 * machinery (custom-pools.ts), recorded in the ledger so that its undo (the node back to worker, the pool deleted)
 * runs with the spec's other undos, after whatever was put on the pool.
 */
import type { FlowSession } from '../flows.js';
import { nodesOfPool } from '../facts/pool.js';
import { step } from '../report.js';
import { createCustomPools } from './custom-pools.js';

/** `ocp-e2e-<stem>` (a MachineConfigPool name and node-role label suffix). */
export function specPoolName(stem: string): string {
  return `ocp-e2e-${stem}`.toLowerCase().replace(/[^a-z0-9-]+/g, '-').slice(0, 55);
}

export async function customPoolForSpec(session: FlowSession, stem: string): Promise<{ pool: string; node: string }> {
  const planned = session.poolFor('worker');
  const snap = session.watcher.snapshot();
  if (planned !== 'worker') {
    const pool = snap.pools.get(planned);
    const node = pool ? nodesOfPool(pool, snap.pools.values(), snap.nodes.values())[0]?.metadata?.name : undefined;
    if (!node) throw new Error(`the run's plan gives this spec custom pool ${planned}, which has no node`);
    return { pool: planned, node };
  }
  const worker = snap.pools.get('worker');
  const workers = worker ? nodesOfPool(worker, snap.pools.values(), snap.nodes.values()).map((n) => n.metadata?.name ?? '').filter(Boolean).sort() : [];
  // the last by name, as the run's plan picks them, so a person finds the same node either way
  const node = workers.at(-1);
  if (!node) throw new Error('pool worker has no node to move into a custom pool');
  const name = specPoolName(stem);
  return step(`make custom pool ${name} of worker node ${node}`, async () => {
    await createCustomPools(session.cluster, session.waits, [{ name, node }], session.target.runId, (l) => console.log(`    ${l}`));
    session.ledger.record({ kind: 'customPool', name, node });
    return { pool: name, node };
  });
}
