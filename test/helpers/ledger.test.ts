import { expect } from 'chai';
import type { Cluster } from '../../helpers/cluster.js';
import type { WaitContext } from '../../helpers/cluster-waits.js';
import { Ledger } from '../../helpers/ledger.js';
import type { LedgerRecord, UndoContext } from '../../helpers/ledger-changes.js';
import type { Engine } from '../../lib/oci/engine.js';
import { CHECKPOINT_NAMESPACE_LABEL } from '../../helpers/types.js';

/** A cluster and an engine that only record what is done to them; the MachineConfigs "on the cluster" are `onCluster`. */
function fakeTarget(onCluster: string[] = [], inSuiteNamespace: string[] = ['kube-root-ca.crt'], namespaceLabels: Record<string, string> = { [CHECKPOINT_NAMESPACE_LABEL.key]: CHECKPOINT_NAMESPACE_LABEL.value }) {
  const done: string[] = [];
  const cluster = {
    client: { get: async (kind: string, name: string) => (kind === 'Namespace' ? { metadata: { name, labels: namespaceLabels } } : undefined) },
    deleteMachineConfig: async (name: string) => {
      done.push(`delete mc ${name}`);
      const at = onCluster.indexOf(name);
      if (at >= 0) onCluster.splice(at, 1);
      return at >= 0;
    },
    listMachineConfigs: async () => onCluster.map((name) => ({ metadata: { name } })),
    deleteConfigMap: async (namespace: string, name: string) => {
      done.push(`delete cm ${namespace}/${name}`);
      return true;
    },
    listConfigMaps: async () => inSuiteNamespace.map((name) => ({ metadata: { name } })),
    deleteNamespace: async (name: string) => {
      done.push(`delete ns ${name}`);
      return true;
    },
  } as unknown as Cluster;
  const engine = { getImage: (ref: string) => ({ remove: async () => void done.push(`rmi ${ref}`) }) } as unknown as Engine;
  const ctx: UndoContext = {
    cluster,
    waits: {} as WaitContext, // no test here settles MachineConfigs: that waits on a watched cluster (cluster.test.ts)
    target: { reportsDir: '/tmp/ocp-e2e-ledger-test' },
    engine: async () => engine,
  };
  return { ctx, done, onCluster };
}

const mc = (name: string, pool: string) => ({ kind: 'MachineConfig', name, pool }) as const;
const IMAGE = { kind: 'image', tag: 'r/l:run-1-54183', pullspec: 'r/l@sha256:1' } as const;

describe('helpers: the ledger of what a test changed', () => {
  it('records each change as data, undoes a step\'s changes together with the words and commands of their kind, newest first', async () => {
    const t = fakeTarget(['tc-1-worker', 'tc-1-master']);
    const ledger = new Ledger(t.ctx);
    ledger.record(IMAGE);
    const overrides = ledger.record(mc('tc-1-worker', 'worker'));
    overrides.add(mc('tc-1-master', 'master'));
    expect(overrides.changes).to.deep.equal([mc('tc-1-worker', 'worker'), mc('tc-1-master', 'master')]);
    expect(ledger.left).to.deep.equal([
      {
        description: 'delete MachineConfigs tc-1-worker, tc-1-master, then wait until pools worker, master settle without them',
        byHand: ['oc delete machineconfig tc-1-worker tc-1-master', 'oc get mcp worker master -w   # until UPDATED=True, UPDATING=False, DEGRADED=False on every pool'],
      },
      { description: 'remove the local copies of r/l:run-1-54183', byHand: ['docker rmi r/l:run-1-54183 r/l@sha256:1   # or podman rmi'] },
    ]);
    const report = await ledger.runAll({ skipSettling: true });
    expect(t.done).to.deep.equal(['delete mc tc-1-worker', 'delete mc tc-1-master', 'rmi r/l:run-1-54183', 'rmi r/l@sha256:1']);
    expect(report.ran).to.deep.equal(['delete MachineConfigs tc-1-worker, tc-1-master', 'remove the local copies of r/l:run-1-54183']);
    expect(t.onCluster).to.deep.equal([]);
    expect((await ledger.runAll()).ran, 'each undo runs once').to.deep.equal([]);
  });

  it('an entry holds changes of one kind, and none once it is undone', async () => {
    const ledger = new Ledger(fakeTarget().ctx);
    const images = ledger.record(IMAGE);
    expect(() => images.add(mc('tc-1-worker', 'worker'))).to.throw(/holds image changes, not MachineConfig/);
    await images.undoNow();
    expect(() => images.add(IMAGE)).to.throw(/already undone or handed on/);
  });

  it('undoNow runs the registered undo through the runner it is given; the cleanup then has nothing left; a failed one stays pending', async () => {
    const t = fakeTarget();
    const ledger = new Ledger(t.ctx);
    const image = ledger.record(IMAGE);
    const steps: string[] = [];
    await image.undoNow(async (title, body) => {
      steps.push(title);
      await body();
    });
    expect(steps).to.deep.equal(['remove the local copies of r/l:run-1-54183']);
    expect(image.pending).to.equal(false);
    expect(ledger.left).to.deep.equal([]);
    expect((await ledger.runAll()).ran).to.deep.equal([]);

    const failing = new Ledger({ ...t.ctx, engine: async () => ({ getImage: () => ({ remove: async () => Promise.reject(new Error('engine gone')) }) }) as unknown as Engine });
    const kept = failing.record(IMAGE);
    await kept.undoNow().then(
      () => expect.fail('the undo failed'),
      (e: Error) => expect(e.message).to.equal('engine gone'),
    );
    expect(kept.pending, 'left for the cleanup to try again').to.equal(true);
    expect(failing.left.map((l) => l.description)).to.deep.equal(['remove the local copies of r/l:run-1-54183']);
  });

  it('hands over the pending changes that live on the cluster, as data; this process keeps its own (local images) and what is undone', async () => {
    const t = fakeTarget(['tc-1-worker', 'tc-2-worker']);
    const ledger = new Ledger(t.ctx);
    ledger.record(IMAGE);
    const removed = ledger.record(mc('tc-2-worker', 'worker'));
    const first = ledger.record(mc('tc-1-worker', 'worker'));
    first.add(mc('tc-1-master', 'master'));
    // undone by its owner (the settle, which waits on a watched cluster, is left out here)
    await removed.undoNow(async (title, body) => (title.startsWith('delete') ? body() : undefined));
    t.done.length = 0;
    let written: LedgerRecord[] = [];
    const where = await ledger.handOver(async (pending) => {
      written = pending;
      expect(first.pending, 'handed on only once written').to.equal(true);
      return 'configmap/x';
    });
    expect(where).to.equal('configmap/x');
    expect(written).to.deep.equal([{ id: first.id, changes: [mc('tc-1-worker', 'worker'), mc('tc-1-master', 'master')] }]);
    expect(ledger.left.map((l) => l.description)).to.deep.equal(['remove the local copies of r/l:run-1-54183']);
    await ledger.runAll({ skipSettling: true });
    expect(t.done, 'the handed-over MachineConfigs stay for the next phase').to.deep.equal(['rmi r/l:run-1-54183', 'rmi r/l@sha256:1']);
  });

  it('a failed hand-over hands nothing over: this process still undoes it', async () => {
    const t = fakeTarget(['tc-1-worker']);
    const ledger = new Ledger(t.ctx);
    ledger.record(mc('tc-1-worker', 'worker'));
    await ledger.handOver(async () => Promise.reject(new Error('ConfigMap refused'))).catch(() => undefined);
    await ledger.runAll({ skipSettling: true });
    expect(t.done).to.deep.equal(['delete mc tc-1-worker']);
  });

  it('adopts what a checkpoint names: the undo is rebuilt from the data; the checkpoint stays while one of its MachineConfigs does', async () => {
    const records: LedgerRecord[] = JSON.parse(JSON.stringify([{ id: 3, changes: [mc('tc-1-worker', 'worker'), mc('tc-1-master', 'master')] }]));
    const t = fakeTarget(['tc-1-worker', 'tc-1-master', 'not-ours']);
    const post = new Ledger(t.ctx);
    post.record({ kind: 'checkpoint', namespace: 'ocp-e2e', name: 'ocp-e2e-checkpoint-01', machineConfigs: ['tc-1-worker', 'tc-1-master'] });
    const adopted = post.adopt(records);
    expect(adopted.get(3)?.changes).to.deep.equal(records[0]!.changes);
    expect(post.left.map((l) => l.byHand[0])).to.deep.equal(['oc delete machineconfig tc-1-worker tc-1-master', 'oc delete configmap/ocp-e2e-checkpoint-01 -n ocp-e2e']);
    const report = await post.runAll({ skipSettling: true });
    expect(report.failed).to.deep.equal([]);
    expect(t.done, 'the namespace held only this checkpoint: it goes too').to.deep.equal(['delete mc tc-1-worker', 'delete mc tc-1-master', 'delete cm ocp-e2e/ocp-e2e-checkpoint-01', 'delete ns ocp-e2e']);

    const shared = fakeTarget(['tc-1-worker'], ['kube-root-ca.crt', 'ocp-e2e-checkpoint-02']);
    const other = new Ledger(shared.ctx);
    other.record({ kind: 'checkpoint', namespace: 'ocp-e2e', name: 'ocp-e2e-checkpoint-01', machineConfigs: ['tc-1-worker'] });
    other.adopt([{ id: 0, changes: [mc('tc-1-worker', 'worker')] }]);
    await other.runAll({ skipSettling: true });
    expect(shared.done, 'another checkpoint keeps the namespace').to.deep.equal(['delete mc tc-1-worker', 'delete cm ocp-e2e/ocp-e2e-checkpoint-01']);

    // deploy/ made this namespace: it holds the ServiceAccount the suite runs as, so it stays with no checkpoint left
    const deployed = fakeTarget(['tc-1-worker'], ['kube-root-ca.crt'], { 'kubernetes.io/metadata.name': 'ocp-e2e' });
    const mine = new Ledger(deployed.ctx);
    mine.record({ kind: 'checkpoint', namespace: 'ocp-e2e', name: 'ocp-e2e-checkpoint-01', machineConfigs: ['tc-1-worker'] });
    mine.adopt([{ id: 0, changes: [mc('tc-1-worker', 'worker')] }]);
    expect((await mine.runAll({ skipSettling: true })).failed).to.deep.equal([]);
    expect(deployed.done, 'a namespace the store did not make stays').to.deep.equal(['delete mc tc-1-worker', 'delete cm ocp-e2e/ocp-e2e-checkpoint-01']);

    const stuck = fakeTarget(['tc-1-master']);
    const again = new Ledger(stuck.ctx);
    again.record({ kind: 'checkpoint', namespace: 'ocp-e2e', name: 'ocp-e2e-checkpoint-01', machineConfigs: ['tc-1-worker', 'tc-1-master'] });
    const kept = await again.runAll();
    expect(kept.failed).to.deep.equal([
      { description: 'remove the checkpoint configmap/ocp-e2e-checkpoint-01 -n ocp-e2e', error: 'kept the checkpoint configmap/ocp-e2e-checkpoint-01 -n ocp-e2e: its MachineConfigs tc-1-master are still on the cluster' },
    ]);
    expect(stuck.done).to.deep.equal([]);
  });

  it('refuses a record without changes or with changes of two kinds', () => {
    const ledger = new Ledger(fakeTarget().ctx);
    expect(() => ledger.adopt([{ id: 0, changes: [] }])).to.throw(/at least one change/);
    expect(() => ledger.adopt([{ id: 0, changes: [IMAGE, mc('a', 'worker')] }])).to.throw(/of one kind, not image and MachineConfig/);
  });
});
