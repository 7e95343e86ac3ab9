/**
 * The same seed gives the same order of transitions per object: each node's sequence of states, and the order in
 * which the nodes of one pool finish (which the seeded durations decide). Transitions of different pools that start in
 * the same instant may interleave differently; they are independent objects.
 */
import { expect } from 'chai';
import { Watch } from '@kubernetes/client-node';
import { ANN } from '../../reference/constants.js';
import { baseOsImage } from '../../reference/releases/release-info.js';
import { overrideMachineConfig, poolSettledOnNew, startHarness, waitFor } from './support/cluster.js';

/** Run the override rollout and record every node's state changes, in the order the API reports them. */
async function rolloutTrace(seed: number): Promise<string[]> {
  const h = await startHarness({ profile: '4.12-ga', seed });
  const trace: string[] = [];
  const last = new Map<string, string>();
  const watch = await new Watch(h.k.kubeConfig).watch('/api/v1/nodes', {}, (_type, node) => {
    const state = `${node.metadata.annotations?.[ANN.state]}:${node.metadata.annotations?.[ANN.currentConfig]?.slice(-6)}`;
    if (last.get(node.metadata.name) !== state) {
      last.set(node.metadata.name, state);
      trace.push(`${node.metadata.name.slice(0, 14)} ${state}`);
    }
  }, () => undefined);
  try {
    const before = (await h.k.get<{ metadata: object; status?: any }>('MachineConfigPool', 'worker'))!.status.configuration.name;
    const masterBefore = (await h.k.get<{ metadata: object; status?: any }>('MachineConfigPool', 'master'))!.status.configuration.name;
    await h.k.create('MachineConfig', overrideMachineConfig('tc-seed-worker', 'worker', baseOsImage(h.cluster.releases.next)));
    await h.k.create('MachineConfig', overrideMachineConfig('tc-seed-master', 'master', baseOsImage(h.cluster.releases.next)));
    await waitFor('worker rollout', () => poolSettledOnNew(h.k, 'worker', before), 45_000);
    await waitFor('master rollout', () => poolSettledOnNew(h.k, 'master', masterBefore), 45_000);
  } finally {
    watch.abort();
    await h.cluster.stop();
  }
  return trace;
}

describe('reference seed', function () {
  this.timeout(120_000);
  it('repeats the order of node transitions for the same seed', async () => {
    const first = await rolloutTrace(7);
    const second = await rolloutTrace(7);
    expect(first.length).to.be.greaterThan(10);
    // Rendered configs are named by a hash of their content, which holds the registry's address: a cluster on another
    // registry port names the same configs differently. So each pool's configs (nodes ip-10-0-128-* are masters,
    // ip-10-0-160-* workers) are numbered in the order the trace first saw them; pools may interleave.
    const perNode = (trace: string[]) => {
      const out: Record<string, string[]> = {};
      const ordinals = new Map<string, Map<string, number>>();
      for (const line of trace) {
        const [node, transition] = line.split(' ') as [string, string];
        const [state, config] = transition.split(':') as [string, string];
        const pool = node.slice(0, node.lastIndexOf('-'));
        const numbers = ordinals.get(pool) ?? ordinals.set(pool, new Map()).get(pool)!;
        if (!numbers.has(config)) numbers.set(config, numbers.size + 1);
        (out[node] ??= []).push(`${state}:config-${numbers.get(config)}`);
      }
      return out;
    };
    const finishOrder = (trace: string[], prefix: string) => trace.filter((l) => l.startsWith(prefix) && / Done:/.test(l)).map((l) => l.split(' ')[0]);
    expect(perNode(second)).to.deep.equal(perNode(first));
    expect(finishOrder(second, 'ip-10-0-128')).to.deep.equal(finishOrder(first, 'ip-10-0-128'));
    expect(finishOrder(second, 'ip-10-0-160')).to.deep.equal(finishOrder(first, 'ip-10-0-160'));
  });
});
