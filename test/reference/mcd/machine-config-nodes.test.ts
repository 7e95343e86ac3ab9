/**
 * MachineConfigNodes (4.19+, reference/mcd/machine-config-nodes.ts): upstream's condition rules on a status
 * (pkg/upgrademonitor/upgrade_monitor.go at release-4.20), then a 4.21 cluster upgraded to 4.22 whose every node's MCN
 * follows its rollout, listed by the real `oc` 4.12 with the CRD's printer columns, and none on 4.12.
 */
import { expect } from 'chai';
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ANN } from '../../../reference/constants.js';
import { applyCall, MCN_CONDITION_TYPES, NOT_YET_SET, type MachineConfigNodeObject, type McnStatus } from '../../../reference/mcd/machine-config-nodes.js';
import { type Harness, type Obj, describeCluster, requestUpgrade, startHarness, waitFor } from '../support/cluster.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const OC = path.resolve(REPO, '..', 'shared', 'upstream', 'bin', 'oc');
const at = { desiredAnnotation: 'rendered-worker-b', currentAnnotation: 'rendered-worker-a', specDesired: 'rendered-worker-b', now: '2026-01-01T00:00:00Z' };
const updated = (node: string, status: 'True' | 'False', message: string) => ({ parent: { type: 'Updated', reason: 'Updated', message: message.replace('%s', node) }, parentStatus: status });

describe('MachineConfigNodes: upstream upgrade_monitor rules', () => {
  it('the first write creates every condition, the ones not reached "not yet entered", False', () => {
    const s = applyCall({}, updated('n1', 'True', 'Node %s Updated'), at)!;
    expect(s.conditions!.map((c) => c.type)).to.have.members([...MCN_CONDITION_TYPES]);
    expect(s.conditions![0]).to.include({ type: 'Updated', status: 'True', message: 'Node n1 Updated' });
    expect(s.conditions!.find((c) => c.type === 'Drained')).to.include({ status: 'False', reason: 'NotYetOccurred', message: 'This node has not yet entered the Drained phase' });
    expect(s.configVersion).to.deep.equal({ desired: 'rendered-worker-b', current: 'rendered-worker-a' });
  });

  it('an unchanged parent writes nothing; Updated resets the others to False with "Action during update to"; another parent unsets Updated', () => {
    let s: McnStatus = applyCall({}, { parent: { type: 'Resumed', reason: 'Resumed', message: 'In desired config a. Resumed normal operations.' }, parentStatus: 'True' }, at)!;
    expect(applyCall(s, { parent: { type: 'Resumed', reason: 'Resumed', message: 'In desired config a. Resumed normal operations.' }, parentStatus: 'True' }, at)).to.equal(undefined);
    s = applyCall(s, updated('n1', 'True', 'Node %s Updated'), at)!;
    expect(s.conditions!.find((c) => c.type === 'Resumed')).to.include({ status: 'False', message: 'Action during update to rendered-worker-b: In desired config a. Resumed normal operations.' });
    s = applyCall(s, { parent: { type: 'UpdatePrepared', reason: 'UpdatePrepared', message: 'x' }, parentStatus: 'Unknown' }, { ...at, desiredAnnotation: '' })!;
    expect(s.conditions!.find((c) => c.type === 'Updated')).to.include({ status: 'False', message: 'This node is not updated, sensed disruption via a manual update.' });
    expect(s.configVersion!.desired, 'an update not proven compatible keeps the placeholder').to.equal(NOT_YET_SET);
  });
});

function requireOc(): void {
  if (!existsSync(OC)) throw new Error(`the real oc 4.12 is missing: expected ${OC} (../shared/upstream/bin/oc); this test runs it and does not skip`);
}

describe('MachineConfigNodes on a reference cluster', function () {
  this.timeout(300_000);

  describe('4.21-to-4.22: every node has one, and it follows the upgrade\'s rollout', () => {
    let h: Harness;
    before(async () => {
      requireOc();
      h = await startHarness({ profile: '4.21-to-4.22' });
    });
    after(async () => h?.cluster.stop());

    const mcns = async () => (await h.k.list<MachineConfigNodeObject>('MachineConfigNode')).items;
    const cond = (m: MachineConfigNodeObject, type: string) => m.status?.conditions?.find((c) => c.type === type);

    it('each node\'s MCN names its pool and config, Updated=True', async () => {
      const nodes = (await h.k.list<Obj>('Node')).items;
      const all = await waitFor('an MCN per node, Updated', async () => {
        const items = await mcns();
        return items.length === nodes.length && items.every((m) => cond(m, 'Updated')?.status === 'True') && items;
      }, 30_000);
      for (const node of nodes) {
        const m = all.find((x) => x.metadata.name === node.metadata.name)!;
        const a = node.metadata.annotations!;
        expect(m.spec).to.deep.equal({ node: { name: node.metadata.name }, pool: { name: node.metadata.labels!['node-role.kubernetes.io/master'] !== undefined ? 'master' : 'worker' }, configVersion: { desired: a[ANN.desiredConfig] } });
        expect(m.status!.configVersion).to.deep.equal({ current: a[ANN.currentConfig], desired: a[ANN.desiredConfig] });
        expect(cond(m, 'Updated')!.message).to.equal(`Node ${node.metadata.name} Updated`);
        expect(m.metadata.ownerReferences?.[0]).to.include({ kind: 'Node', name: node.metadata.name });
      }
    });

    it('oc get machineconfignodes (the real oc 4.12) lists every node with the CRD\'s columns, -o wide with the update steps', async () => {
      const run = await execa(OC, ['get', 'machineconfignodes'], { env: { KUBECONFIG: h.cluster.kubeconfigPath }, reject: false });
      expect(run.exitCode, String(run.stderr)).to.equal(0);
      const lines = String(run.stdout).trim().split('\n');
      expect(lines[0]!.split(/\s+/)).to.deep.equal(['NAME', 'POOLNAME', 'DESIREDCONFIG', 'CURRENTCONFIG', 'UPDATED', 'AGE']);
      const nodes = (await h.k.list<Obj>('Node')).items.map((n) => n.metadata.name!);
      expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).to.have.members(nodes);
      for (const l of lines.slice(1)) {
        const [, pool, desired, current, isUpdated] = l.split(/\s+/);
        expect(desired).to.equal(current);
        expect(desired).to.match(new RegExp(`^rendered-${pool}-`));
        expect(isUpdated).to.equal('True');
      }
      const wide = await execa(OC, ['get', 'machineconfignodes', '-o', 'wide'], { env: { KUBECONFIG: h.cluster.kubeconfigPath }, reject: false });
      expect(String(wide.stdout).split('\n')[0]!.split(/\s+/)).to.include.members(['UPDATEPREPARED', 'UPDATEEXECUTED', 'CORDONEDNODE', 'DRAINEDNODE', 'REBOOTEDNODE', 'UNCORDONEDNODE']);
    });

    it('the upgrade to 4.22: a node being updated shows Updated=False toward the new config, then every MCN is Updated on it', async () => {
      const before = new Map((await mcns()).map((m) => [m.metadata.name!, m.status!.configVersion!.current!]));
      await requestUpgrade(h.k, h.cluster.releases.next.image);
      const seen = new Set<string>();
      await waitFor('every MCN Updated=True on a new config', async () => {
        const items = await mcns();
        for (const m of items) {
          if (cond(m, 'Updated')?.status === 'False' && m.spec!.configVersion.desired !== before.get(m.metadata.name!)) {
            expect(cond(m, 'Updated')!.message).to.equal(`Node ${m.metadata.name} needs an update`);
            seen.add(m.metadata.name!);
          }
        }
        return items.every((m) => cond(m, 'Updated')?.status === 'True' && m.status!.configVersion!.current !== before.get(m.metadata.name!));
      }, 240_000, () => describeCluster(h.k, h.cluster));
      expect(seen.size, 'nodes seen updating').to.be.greaterThan(0);
      const pools = new Map((await h.k.list<Obj>('MachineConfigPool')).items.map((p) => [p.metadata.name!, p.status!.configuration.name as string]));
      const nodes = (await h.k.list<Obj>('Node')).items;
      for (const m of await mcns()) {
        const node = nodes.find((n) => n.metadata.name === m.metadata.name)!;
        expect(m.status!.configVersion).to.deep.equal({ current: pools.get(m.spec!.pool.name), desired: pools.get(m.spec!.pool.name) });
        expect(node.metadata.annotations![ANN.currentConfig]).to.equal(pools.get(m.spec!.pool.name));
        // the rollout's steps, each reset to False by the final Updated with the config it went to
        expect(cond(m, 'RebootedNode')).to.include({ status: 'False', message: `Action during update to ${pools.get(m.spec!.pool.name)}: Node has rebooted` });
        expect(cond(m, 'Drained')!.message).to.match(/Drained node\. The drain is complete as the desired drainer matches current drainer: drain-rendered-/);
        expect(cond(m, 'NodeDegraded')).to.include({ status: 'False', message: `Node ${m.metadata.name} upgrade succeeded` });
      }
    });
  });

  it('4.12-ga has none: the kind is not served', async () => {
    const h = await startHarness({ profile: '4.12-ga' });
    try {
      const error = await h.k.list('MachineConfigNode').then(() => undefined, (e: Error) => e);
      expect(error?.message).to.match(/404|not found/i);
    } finally {
      await h.cluster.stop();
    }
  });
});
