import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { Cluster } from '../../helpers/cluster.js';
import { KINDS } from '../../lib/kube/kinds.js';
import { ClusterWatcher } from '../../helpers/cluster-watcher.js';
import { discoverCapabilities } from '../../helpers/capabilities.js';
import { PoolDegradedError, waitForPools, waitForUpgrade } from '../../helpers/cluster-waits.js';
import { Cleanup, leakedObjects } from '../../helpers/cleanup.js';
import { createOverrideMachineConfig } from '../../helpers/machineconfigs.js';
import { judgeRecording } from '../../helpers/monitor/judge.js';
import { UpgradeRecorder } from '../../helpers/monitor/record.js';
import { gatherArtifacts } from '../../helpers/artifacts.js';
import { maskSecrets, registerSecret } from '../../helpers/secrets.js';
import { buildCredentials, registryAccess } from '../../helpers/credentials.js';
import { RunIdLabel } from '../../helpers/types.js';
import { triggerUpgrade } from '../../helpers/upgrade.js';
import { waitFor, WaitFailedError, WaitTimeoutError } from '../../helpers/wait.js';
import { MockCluster, cond, FROM, TO, RELEASE_TO } from './fixture.js';

const quiet = Object.assign(() => {}, { end() {} });
const fast = { timeFactor: 600 };
const IMAGE = `127.0.0.1:5000/e2e/layered@sha256:${'cd'.repeat(32)}`;

describe('helpers against a real API server (mock/ with the reference CRDs)', function () {
  this.timeout(30_000);
  let mock: MockCluster;
  let watcher: ClusterWatcher | undefined;
  // The mock runs no pods, so these tests take the API paths with oc off PATH, whether or not the machine (CI puts
  // the upstream oc on PATH) has one; the oc paths run against the reference in test/bin/real-oc.test.ts.
  const pathBefore = process.env.PATH;
  before(() => {
    process.env.PATH = (pathBefore ?? '').split(delimiter).filter((d) => d && !existsSync(join(d, 'oc'))).join(delimiter);
  });
  after(() => {
    process.env.PATH = pathBefore;
  });

  // the faults' draws: random unless a test scripts them
  let draw: () => number = Math.random;
  beforeEach(async () => {
    draw = Math.random;
    mock = await MockCluster.start({ faultDraws: () => draw() });
    await mock.seedSettledCluster();
  });
  afterEach(async () => {
    watcher?.stop();
    watcher = undefined;
    await mock.stop();
  });

  it('reads the typed kinds and tells a real cluster (no info ConfigMap) from the reference', async () => {
    const cv = await mock.cluster.getClusterVersion();
    expect(cv.status?.availableUpdates?.[0]?.version).to.equal(TO);
    expect((await mock.cluster.listMachineConfigPools()).map((p) => p.metadata.name).sort()).to.deep.equal(['master', 'worker']);
    expect(await discoverCapabilities(mock.cluster)).to.deep.equal({ timeFactor: 1, isReference: false });
    await mock.server.kubeconfigYaml(); // still serving
    const { CoreV1Api } = await import('@kubernetes/client-node');
    const kc = new KubeConfig();
    kc.loadFromFile(mock.kubeconfigPath);
    await kc.makeApiClient(CoreV1Api).createNamespacedConfigMap({
      namespace: 'kube-system',
      body: { metadata: { name: 'ocp-e2e-reference-cluster' }, data: { timeFactor: '600', registry: '127.0.0.1:5000', imageRepo: '127.0.0.1:5000/e2e/layered', profile: '4.12-ga', seed: '1' } },
    });
    expect(await discoverCapabilities(mock.cluster)).to.deep.include({ timeFactor: 600, isReference: true, imageRepo: '127.0.0.1:5000/e2e/layered' });
  });

  it('fails fast on a refused token with a hint, and rides out injected 500s', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(mock.server.kubeconfigYaml().replace(mock.server.token, 'wrong-token-123'));
    const err = await new Cluster(kc).getClusterVersion().catch((e: Error) => e);
    expect((err as Error).message).to.match(/get ClusterVersion version failed: HTTP 401.*log in again/);

    // two requests of every three answered 500, the same on every run: each list rides out two in a row
    let draws = 0;
    draw = () => [0.1, 0.2, 0.9][draws++ % 3]!;
    mock.server.setFaults({ rate500: 0.3 });
    for (let i = 0; i < 5; i++) expect((await mock.cluster.listNodes()).length).to.equal(5);
    mock.server.setFaults({});
    expect(draws, 'requests the faults drew for').to.equal(15);
  });

  it('triggers the upgrade with the merge patch when oc is not installed', async () => {
    const t = await triggerUpgrade(mock.cluster, mock.kubeconfigPath, RELEASE_TO);
    expect(t.method).to.equal('merge patch of clusterversion/version');
    const cv = await mock.cluster.getClusterVersion();
    expect(cv.spec?.desiredUpdate).to.deep.equal({ version: '', image: RELEASE_TO, force: true });
  });

  it('waits on watch events for pools rendered with new MachineConfigs, and cleans them up LIFO', async () => {
    watcher = new ClusterWatcher(mock.cluster);
    await watcher.start();
    const cleanup = new Cleanup();
    const order: string[] = [];
    cleanup.add({ description: 'first', undo: async () => void order.push('first') });
    const override = { name: 'tc-1-worker', role: 'worker', osImageURL: IMAGE };
    await createOverrideMachineConfig(mock.cluster, override, 'run-1');
    cleanup.add({ description: 'delete MachineConfig tc-1-worker', undo: async () => void (await mock.cluster.deleteMachineConfig('tc-1-worker')) });
    expect(await leakedObjects(mock.cluster, 'run-1', 'ocp-e2e')).to.deep.equal(['MachineConfig/tc-1-worker']);
    await createOverrideMachineConfig(mock.cluster, override, 'run-1').then(
      () => expect.fail('a second create must fail'),
      (e: Error) => expect(e.message).to.match(/already exists.*oc delete mc tc-1-worker/),
    );

    const waiting = waitForPools({ watcher, caps: fast, progress: quiet }, { pools: ['worker'], rendered: { worker: { with: ['tc-1-worker'] } } });
    // Play the render controller and the rollout: new rendered config, pool updating, then updated.
    await mock.patch(KINDS.MachineConfigPool, 'worker', { spec: { configuration: { name: 'rendered-worker-b', source: [{ name: '00-worker' }, { name: 'tc-1-worker' }] } } });
    await mock.patchStatus(KINDS.MachineConfigPool, 'worker', mock.poolStatus('rendered-worker-b', 2, 'updating'));
    await new Promise((r) => setTimeout(r, 100));
    await mock.patchStatus(KINDS.MachineConfigPool, 'worker', mock.poolStatus('rendered-worker-b', 2, 'updated'));
    const snapshot = await waiting;
    expect(snapshot.pools.get('worker')?.status?.configuration?.name).to.equal('rendered-worker-b');

    const report = await cleanup.runAll();
    expect(report.failed).to.deep.equal([]);
    expect(report.ran).to.deep.equal(['delete MachineConfig tc-1-worker', 'first']);
    expect(order).to.deep.equal(['first']);
    expect(await leakedObjects(mock.cluster, 'run-1', 'ocp-e2e')).to.deep.equal([]);
    expect((await cleanup.runAll()).ran, 'cleanup runs each action once').to.deep.equal([]);
  });

  it('the leak check finds every kind the run labels: MachineConfigs, checkpoint ConfigMaps, debug namespaces not being deleted', async () => {
    const labels = { [RunIdLabel]: 'run-2' };
    await createOverrideMachineConfig(mock.cluster, { name: 'tc-2-worker', role: 'worker', osImageURL: IMAGE }, 'run-2');
    await mock.cluster.ensureNamespace('ocp-e2e');
    await mock.cluster.writeConfigMap({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ocp-e2e-checkpoint-02', namespace: 'ocp-e2e', labels }, data: {} });
    await mock.cluster.ensureNamespace('openshift-debug-abcde', labels);
    await mock.cluster.ensureNamespace('openshift-debug-other', { [RunIdLabel]: 'run-3' });
    expect((await leakedObjects(mock.cluster, 'run-2', 'ocp-e2e')).sort()).to.deep.equal(['ConfigMap/ocp-e2e-checkpoint-02 -n ocp-e2e', 'MachineConfig/tc-2-worker', 'Namespace/openshift-debug-abcde']);
    await mock.cluster.deleteMachineConfig('tc-2-worker');
    await mock.cluster.deleteConfigMap('ocp-e2e', 'ocp-e2e-checkpoint-02');
    await mock.cluster.deleteNamespace('openshift-debug-abcde');
    expect(await leakedObjects(mock.cluster, 'run-2', 'ocp-e2e'), 'deleted, or being deleted').to.deep.equal([]);
  });

  it('on timeout says what it saw, what it wanted and the last error', async () => {
    watcher = new ClusterWatcher(mock.cluster);
    await watcher.start();
    Object.defineProperty(watcher, 'lastError', { value: 'watch MachineConfigPool: connection reset' });
    const err = await waitForPools({ watcher, caps: { timeFactor: 60_000 }, progress: quiet, minBudgetMs: 300, compressedClockSlackMs: 0 }, { pools: ['worker'], rendered: { worker: { with: ['tc-never'] } } })
      .then(() => undefined, (e: Error) => e);
    expect(err).to.be.instanceOf(WaitTimeoutError);
    const message = (err as Error).message;
    expect(message).to.match(/^timed out after .*cluster time .* waiting for pools worker to roll out/);
    expect(message).to.include('expected: pools worker: rendered with tc-never');
    expect(message).to.include('last observed: worker 2/2 updated');
    expect(message).to.include('clusteroperator/machine-config version=' + FROM);
    expect(message).to.include('last error: watch MachineConfigPool: connection reset');
  });

  it('stops at once on a degraded pool, naming the node, the image and the reason', async () => {
    await mock.create(KINDS.MachineConfig, { metadata: { name: 'rendered-worker-bad' }, spec: { osImageURL: IMAGE } });
    watcher = new ClusterWatcher(mock.cluster);
    await watcher.start();
    const reason = `failed to pull ${IMAGE}: manifest unknown`;
    await mock.patch(KINDS.Node, 'worker-1', {
      metadata: { annotations: { 'machineconfiguration.openshift.io/desiredConfig': 'rendered-worker-bad', 'machineconfiguration.openshift.io/state': 'Degraded', 'machineconfiguration.openshift.io/reason': reason } },
    });
    await mock.patch(KINDS.MachineConfigPool, 'worker', { spec: { configuration: { name: 'rendered-worker-bad', source: [{ name: 'tc-bad' }] } } });
    await mock.patchStatus(KINDS.MachineConfigPool, 'worker', mock.poolStatus('rendered-worker-bad', 2, 'degraded', `Node worker-1 is reporting: "${reason}"`));
    const started = Date.now();
    const err = await waitForPools({ watcher, caps: { timeFactor: 1 }, progress: quiet }, { pools: ['worker'], rendered: { worker: { with: ['tc-bad'] } }, degradedGraceClusterMinutes: 0.02 }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(Date.now() - started, 'a degraded pool must not wait for the budget').to.be.lessThan(5000);
    expect(err).to.be.instanceOf(WaitFailedError).and.instanceOf(PoolDegradedError);
    // As data, for specs: which node of which pool, moving where, to which image, and why.
    expect((err as PoolDegradedError).nodes).to.deep.equal([{ name: 'worker-1', pool: 'worker', desiredConfig: 'rendered-worker-bad', osImageURL: IMAGE, reason }]);
    // As prose, for people: the same, in one line per node.
    expect((err as Error).message).to.include(`node worker-1 failed to move to rendered-worker-bad with osImageURL ${IMAGE}: ${reason}`);
  });

  it('says when it first saw a node degraded on the awaited config, and what it saw of the pool before', async () => {
    await mock.create(KINDS.MachineConfig, { metadata: { name: 'rendered-worker-late' }, spec: { osImageURL: IMAGE } });
    watcher = new ClusterWatcher(mock.cluster);
    await watcher.start();
    await mock.patch(KINDS.MachineConfigPool, 'worker', { spec: { configuration: { name: 'rendered-worker-late', source: [{ name: 'tc-late' }] } } });
    await mock.patch(KINDS.Node, 'worker-1', { metadata: { annotations: { 'machineconfiguration.openshift.io/desiredConfig': 'rendered-worker-late', 'machineconfiguration.openshift.io/state': 'Working' } } });
    const started = Date.now();
    const waiting = waitForPools({ watcher, caps: { timeFactor: 1 }, progress: quiet }, { pools: ['worker'], rendered: { worker: { with: ['tc-late'] } }, degradedGraceClusterMinutes: 0.02 }).then(
      () => undefined,
      (e: Error) => e,
    );
    await new Promise((r) => setTimeout(r, 300));
    // the daemon reports the node degraded first; the pool's NodeDegraded follows
    const reason = `failed to pull ${IMAGE}: manifest unknown`;
    const degradedAt = Date.now();
    await mock.patch(KINDS.Node, 'worker-1', { metadata: { annotations: { 'machineconfiguration.openshift.io/state': 'Degraded', 'machineconfiguration.openshift.io/reason': reason } } });
    await new Promise((r) => setTimeout(r, 300));
    await mock.patchStatus(KINDS.MachineConfigPool, 'worker', mock.poolStatus('rendered-worker-late', 2, 'degraded', `Node worker-1 is reporting: "${reason}"`));
    const err = await waiting;
    expect(err).to.be.instanceOf(PoolDegradedError);
    const first = (err as PoolDegradedError).firstDegraded;
    // on a real cluster's clock (factor 1, no server clock given) target time is wall time
    expect(first.targetMs).to.be.within(degradedAt, degradedAt + 250);
    expect(first.wallMs).to.be.within(degradedAt, degradedAt + 250);
    expect(first.targetMs).to.be.above(started + 250);
    expect(first.lastSeenBefore).to.match(/^worker \d\/2 updated, node worker-1 updating/);
  });

  it('records the upgrade timeline and judges the invariants', async () => {
    watcher = new ClusterWatcher(mock.cluster);
    await watcher.start();
    const recorder = new UpgradeRecorder(watcher, fast, { image: RELEASE_TO, version: TO });
    const degradedMsg = `Unable to apply ${TO}: error during syncRequiredMachineConfigPools: [timed out waiting for the condition, pool master has not progressed to latest configuration: osImageURL mismatch for master in rendered-master-b expected: x got: y, retrying]`;
    await mock.patchStatus(KINDS.ClusterOperator, 'machine-config', { conditions: [cond('Available', 'True'), cond('Progressing', 'True', `Working towards ${TO}`), cond('Degraded', 'True', degradedMsg, 'RequiredPoolsFailed')] });
    await mock.patchStatus(KINDS.MachineConfigPool, 'master', mock.poolStatus('rendered-master-b', 3, 'updating'));
    await new Promise((r) => setTimeout(r, 150));
    // The CVO completes while the master pool is still updating: the ordering invariant must catch it.
    await mock.patchStatus(KINDS.ClusterVersion, 'version', {
      desired: { version: TO, image: RELEASE_TO },
      history: [{ state: 'Completed', version: TO, image: RELEASE_TO, startedTime: new Date().toISOString(), completionTime: new Date().toISOString(), verified: false }],
      conditions: [cond('Available', 'True'), cond('Progressing', 'False'), cond('Failing', 'False')],
    });
    await new Promise((r) => setTimeout(r, 200));
    const recording = recorder.stop();
    const locators = recording.timeline.map((i) => i.locator);
    expect(locators).to.include.members(['ClusterOperator/machine-config', 'MachineConfigPool/master', 'ClusterVersion/version']);
    expect(recording.timeline.at(-1)!.from.cluster).to.match(/^\+\d+m\d\ds$/);
    const results = judgeRecording(recording);
    expect(results.map((r) => r.ok)).to.deep.equal([false, false, false, true]);
    expect(results[0]!.why).to.include('osImageURL mismatch for master in rendered-master-b');
    expect(results[1]!.why).to.include('(still Degraded)');
    expect(results[2]!.why).to.match(/when ClusterVersion reported Completed, master was: .*Updating=true/);
  });

  it('waits for the upgrade as origin does and quotes ClusterVersion and the operator on timeout', async () => {
    watcher = new ClusterWatcher(mock.cluster);
    await watcher.start();
    await mock.patchStatus(KINDS.ClusterVersion, 'version', {
      desired: { version: TO, image: RELEASE_TO },
      history: [{ state: 'Partial', version: TO, image: RELEASE_TO, startedTime: new Date().toISOString(), completionTime: null, verified: false }],
      conditions: [cond('Available', 'True'), cond('Progressing', 'True', `Unable to apply ${TO}: wait has exceeded 40 minutes for these operators: machine-config`), cond('Failing', 'True')],
    });
    const err = await waitForUpgrade({ watcher, caps: { timeFactor: 6000 }, progress: quiet, minBudgetMs: 300, compressedClockSlackMs: 0 }, { image: RELEASE_TO }).then(() => undefined, (e: Error) => e);
    expect((err as Error).message).to.include('wait has exceeded 40 minutes for these operators: machine-config');
    expect((err as Error).message).to.include('history[0]=Partial ' + TO);
  });

  it('gathers artefacts as YAML with secrets masked', async () => {
    const secret = 'artefact-secret-MARKER-42';
    registerSecret(secret);
    await mock.create(KINDS.MachineConfig, { metadata: { name: 'tc-secret', annotations: { note: secret } }, spec: {} });
    const root = mkdtempSync(join(tmpdir(), 'ocp-e2e-artifacts-'));
    const result = await gatherArtifacts({ cluster: mock.cluster, kubeconfig: mock.kubeconfigPath, testTitle: 'suite / case 1: x', root, extra: { timeline: [{ a: secret }] } });
    expect(result.dir).to.equal(join(root, 'suite-case-1-x'));
    for (const name of ['clusterversion', 'clusteroperators', 'machineconfigpools', 'machineconfigs', 'nodes', 'events', 'timeline']) {
      expect(existsSync(join(result.dir, `${name}.yaml`)), name).to.equal(true);
    }
    const mcs = readFileSync(join(result.dir, 'machineconfigs.yaml'), 'utf8');
    expect(mcs).to.include('tc-secret').and.not.include(secret);
    expect(readFileSync(join(result.dir, 'timeline.yaml'), 'utf8')).to.not.include(secret);
    // kubectl is installed on these machines: the human-readable tables are gathered too.
    expect(readFileSync(join(result.dir, 'kubectl-get.txt'), 'utf8')).to.match(/clusteroperator\.config\.openshift\.io\/machine-config\s+4\.12/);
    void writeFileSync;
  });

  it("builds with the cluster's own pull secret when none is given, masking its credentials", async () => {
    const { CoreV1Api } = await import('@kubernetes/client-node');
    const kc = new KubeConfig();
    kc.loadFromFile(mock.kubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'openshift-config' } } });
    const password = 'cluster-pull-secret-MARKER-9';
    const dockerconfig = JSON.stringify({ auths: { 'quay.io': { auth: Buffer.from(`robot:${password}`).toString('base64') } } });
    await core.createNamespacedSecret({
      namespace: 'openshift-config',
      body: { metadata: { name: 'pull-secret' }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from(dockerconfig).toString('base64') } },
    });
    // No --pull-secret given.
    const credentials = await buildCredentials(mock.cluster, registryAccess(undefined));
    expect(credentials.hosts()).to.deep.equal(['quay.io']);
    expect(credentials.authFor('quay.io')?.password).to.equal(password);
    expect(maskSecrets(`pulling with ${password}`)).to.equal('pulling with ***');
  });

  it('falls back to polling when watches keep failing, and still sees changes', async () => {
    mock.server.setFaults({ watchCutSeconds: 0.001, pathPattern: 'watch=' });
    watcher = new ClusterWatcher(mock.cluster, { kinds: ['MachineConfigPool'], maxWatchFailures: 2, pollIntervalMs: 100 });
    await watcher.start();
    const seen = waitFor(watcher, {
      what: 'worker paused',
      expected: 'spec.paused',
      budgetMs: 8000,
      caps: { timeFactor: 1 },
      judge: (s) => ({ done: s.pools.get('worker')?.spec?.paused === true, progress: 'waiting' }),
    }, quiet);
    await new Promise((r) => setTimeout(r, 300));
    await mock.patch(KINDS.MachineConfigPool, 'worker', { spec: { paused: true } });
    await seen;
    mock.server.setFaults({});
  });
});
