/**
 * QE's upgrade pipeline with ocp-e2e as its PreChkUpgrade and PstChkUpgrade steps (issue 13), against `ocp-e2e cluster
 * up` as a real cluster: `run --phase pre --target cluster`, then the upgrade by hand with the real `oc` (`oc adm
 * upgrade --to-image … --allow-explicit-upgrade --force`, as the report does), then `run --phase post` from a new
 * process. It passes on 4.12-ga and fails on the report's nightly with the deadlock diagnosis; `--phase upgrade` in
 * between instead of `oc` hands its recorded upgrade on; every wrong order is refused with exit 2 before any spec runs.
 */
import { expect } from 'chai';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Cluster } from '../../helpers/cluster.js';
import { CHECKPOINT_KEY, CHECKPOINT_NAMESPACE, checkpointName } from '../../helpers/checkpoint/format.js';
import { clusterUp, lastLine, ocAdmUpgradeToNext, ocpE2e, ROOT, tempReportsDir, type ClusterUp, type CliRun } from '../support/cli.js';
import { startCli } from '../support/cli-child.js';
import { KILL_MATRIX } from './support/kill-matrix.js';

const OC = join(ROOT, '..', 'shared', 'upstream', 'bin', 'oc');
const SPEC1 = '01-upgrade-custom-os-image-both-pools.spec.ts';
const CHECKPOINT = checkpointName(SPEC1);
const NIGHTLY = '4.12-nightly-2022-09-08';
const DEADLOCK = KILL_MATRIX.find((row) => row.grep === '54183' && row.profile === NIGHTLY)!.expect;

function requireOc(): void {
  if (!existsSync(OC)) throw new Error(`the upstream oc is missing at ${OC} (../shared/upstream/bin/oc): this test upgrades the cluster with it, as a person in the pipeline would`);
}

/** One cluster of a profile, with the phases run against it as a CI job's steps would. */
class Pipeline {
  private constructor(
    readonly up: ClusterUp,
    readonly cluster: Cluster,
  ) {}

  static async start(profile: string): Promise<Pipeline> {
    const up = await clusterUp(['--profile', profile]);
    return new Pipeline(up, Cluster.fromKubeconfig(up.kubeconfig));
  }

  get env(): Record<string, string> {
    return { ...this.up.env, PATH: `${dirname(OC)}:${process.env.PATH ?? ''}` };
  }

  /**
   * One step of the pipeline. Only pre builds: upgrade and post run as on a CI machine without a container engine
   * (DOCKER_HOST pointing nowhere) and without --image-repo.
   */
  phase(phase: string, extra: string[] = []): Promise<CliRun> {
    const env = phase === 'pre' ? this.env : { ...this.env, DOCKER_HOST: 'unix:///nonexistent/ocp-e2e-no-engine.sock' };
    return ocpE2e(['run', '--target', 'cluster', '--kubeconfig', this.up.kubeconfig, '--allow-disruptive', '--phase', phase, '--grep', '54183', ...extra], { env, timeoutMs: 200_000 });
  }

  /** The pipeline's own upgrade step: what the report ran, with the real oc. */
  ocAdmUpgrade(): Promise<string> {
    return ocAdmUpgradeToNext(OC, this.up.kubeconfig, this.env);
  }

  async checkpointText(): Promise<string | undefined> {
    return (await this.cluster.getConfigMap(CHECKPOINT_NAMESPACE, CHECKPOINT))?.data?.[CHECKPOINT_KEY];
  }

  async overrides(): Promise<string[]> {
    return (await this.cluster.listMachineConfigs()).map((mc) => mc.metadata.name ?? '').filter((n) => n.startsWith('tc-54183-'));
  }
}

const junitNames = (run: CliRun): string =>
  readdirSync(join(run.reportsDir, 'junit'))
    .map((f) => readFileSync(join(run.reportsDir, 'junit', f), 'utf8'))
    .join('\n');

function expectExit(run: CliRun, code: number, why: string): void {
  expect(run.exitCode, `${why}; output:\n${run.output.slice(-3000)}`).to.equal(code);
}

interface NightlyOutcome {
  pre: CliRun;
  post: CliRun;
  overridesLeft: string[];
  checkpointLeft: string | undefined;
}

interface UpgradeSteps {
  early: CliRun;
  pre: CliRun;
  upgrade: CliRun;
  recorded: { upgrade?: { version: string; recording: { timeline: unknown[] } } };
  overridesAfterUpgrade: string[];
  again: CliRun;
  post: CliRun;
  overridesLeft: string[];
}

async function nightlyPipeline(p: Pipeline): Promise<NightlyOutcome> {
  const pre = await p.phase('pre');
  await p.ocAdmUpgrade();
  const post = await p.phase('post');
  return { pre, post, overridesLeft: await p.overrides(), checkpointLeft: await p.checkpointText() };
}

interface InterruptedPost {
  pre: CliRun;
  code: number;
  output: string;
  overridesLeft: string[];
  checkpointLeft: string | undefined;
}

/** pre, the upgrade by hand, then post interrupted (SIGINT) while it follows the upgrade. */
async function interruptedPost(p: Pipeline): Promise<InterruptedPost> {
  const pre = await p.phase('pre');
  await p.ocAdmUpgrade();
  const post = startCli(['run', '--target', 'cluster', '--kubeconfig', p.up.kubeconfig, '--allow-disruptive', '--phase', 'post', '--grep', '54183', '--reports-dir', tempReportsDir()], p.env);
  try {
    await post.waitFor(/▶ phase (upgrade|check)/, 120_000);
    post.child.kill('SIGINT');
    const { code } = await post.exited;
    return { pre, code, output: post.output(), overridesLeft: await p.overrides(), checkpointLeft: await p.checkpointText() };
  } finally {
    if (post.child.exitCode === null && post.child.signalCode === null) process.kill(-post.child.pid!, 'SIGKILL');
  }
}

async function pipelineWithUpgradePhase(p: Pipeline): Promise<UpgradeSteps> {
  const early = await p.phase('upgrade');
  const pre = await p.phase('pre');
  const upgrade = await p.phase('upgrade');
  const recorded = JSON.parse((await p.checkpointText()) ?? '{}') as UpgradeSteps['recorded'];
  const overridesAfterUpgrade = await p.overrides();
  const again = await p.phase('upgrade');
  const post = await p.phase('post');
  return { early, pre, upgrade, recorded, overridesAfterUpgrade, again, post, overridesLeft: await p.overrides() };
}

describe('suite: --phase pre, an upgrade by hand, --phase post (QE upgrade pipeline)', function () {
  this.timeout(600_000);
  const started: Pipeline[] = [];
  let ga: Pipeline;
  // The nightly's pipeline and the one with --phase upgrade run in the background while the 4.12-ga steps below run
  // one by one (the clusters mostly wait on their clocks), and are judged in their tests.
  let nightly: Promise<NightlyOutcome>;
  let withUpgradePhase: Promise<UpgradeSteps>;

  before(async () => {
    requireOc();
    // One after another: the clusters share the registry of the reference's work folder, which one start fills.
    for (const profile of ['4.12-ga', NIGHTLY, '4.12-ga']) started.push(await Pipeline.start(profile));
    ga = started[0]!;
    nightly = nightlyPipeline(started[1]!);
    withUpgradePhase = pipelineWithUpgradePhase(started[2]!);
    for (const background of [nightly, withUpgradePhase]) background.catch(() => undefined); // judged in its test
  });
  after(async () => {
    await Promise.allSettled([nightly, withUpgradePhase]);
    await Promise.allSettled(started.map((p) => p.up.stop()));
  });

  describe('on 4.12-ga', () => {
    const p = (): Pipeline => ga;

    it('post before pre is refused (exit 2) and names the missing checkpoint', async () => {
      const run = await p().phase('post');
      expectExit(run, 2, 'post without a checkpoint');
      expect(run.output).to.include(`not prepared: no checkpoint on this cluster (no configmap/${CHECKPOINT} -n ocp-e2e): its --phase pre failed`);
      expect(run.output).to.not.match(/▶ phase/);
    });

    it('pre prepares, leaves the checkpoint on the cluster and in reports/, and passes as PreChkUpgrade', async () => {
      const run = await p().phase('pre');
      expectExit(run, 0, 'pre on a healthy cluster');
      expect(lastLine(run.output)).to.equal('1 passed, 0 failed, 0 skipped');
      expect(run.output).to.match(/--phase pre done: configmap\/ocp-e2e-checkpoint-01-upgrade-custom-os-image-both-pools -n ocp-e2e/);
      expect(run.output, 'pre does not upgrade').to.not.match(/▶ phase (upgrade|check)/);
      expect(junitNames(run)).to.include('Author:ocp-e2e-NonPreRelease-PreChkUpgrade-Longduration-High-54183-');
      expect(JSON.parse(readFileSync(join(run.reportsDir, 'run.json'), 'utf8'))).to.include({ phase: 'pre' });
      const text = await p().checkpointText();
      expect(text, 'the checkpoint ConfigMap').to.be.a('string');
      const checkpoint = JSON.parse(text!) as { pending: { changes: { kind: string; name?: string }[] }[]; prepared: { image: { pullspec: string } }; from: { version: string }; clusterId: string };
      const machineConfigs = checkpoint.pending.flatMap((r) => r.changes).filter((c) => c.kind === 'MachineConfig');
      expect(machineConfigs.map((c) => c.name).sort()).to.deep.equal(['tc-54183-new-os-image-upgrade-master', 'tc-54183-new-os-image-upgrade-worker']);
      expect(checkpoint.prepared.image.pullspec).to.match(/layered-os@sha256:[0-9a-f]{64}$/);
      expect(checkpoint.clusterId).to.equal((await p().cluster.getClusterVersion()).spec?.clusterID);
      expect(JSON.parse(readFileSync(join(run.reportsDir, 'checkpoints', `${CHECKPOINT}.json`), 'utf8'))).to.deep.equal(JSON.parse(text!));
      expect(await p().overrides(), 'the overrides stay for post').to.have.length(2);
    });

    it('pre twice is refused (exit 2), saying how to go on or throw the checkpoint away', async () => {
      const run = await p().phase('pre');
      expectExit(run, 2, 'a second pre');
      expect(run.output).to.include('--phase pre already ran on this cluster');
      expect(run.output).to.include(`oc delete configmap/${CHECKPOINT} -n ocp-e2e`);
    });

    it('post on a cluster nobody upgraded is refused (exit 2)', async () => {
      const run = await p().phase('post');
      expectExit(run, 2, 'post without an upgrade');
      expect(run.output).to.include('the cluster was not upgraded after --phase pre');
    });

    it('a checkpoint from another suite version or another cluster is refused (exit 2)', async () => {
      const original = (await p().checkpointText())!;
      const rewrite = async (change: (c: Record<string, unknown>) => void) => {
        const c = JSON.parse(original) as Record<string, unknown>;
        change(c);
        await p().cluster.client.patch('ConfigMap', CHECKPOINT, { data: { [CHECKPOINT_KEY]: JSON.stringify(c) } }, CHECKPOINT_NAMESPACE);
      };
      try {
        await rewrite((c) => (c.suiteVersion = '0.0.1'));
        let run = await p().phase('post');
        expectExit(run, 2, 'another suite version');
        expect(run.output).to.match(/was written by ocp-e2e 0\.0\.1 .*run every phase of a pipeline with the same suite/);
        await rewrite((c) => (c.clusterId = '00000000-0000-0000-0000-000000000000'));
        run = await p().phase('post');
        expectExit(run, 2, 'another cluster');
        expect(run.output).to.include('comes from another cluster (clusterID 00000000-0000-0000-0000-000000000000');
      } finally {
        await p().cluster.client.patch('ConfigMap', CHECKPOINT, { data: { [CHECKPOINT_KEY]: original } }, CHECKPOINT_NAMESPACE);
      }
    });

    it('after `oc adm upgrade` by hand, post from a new process follows it, passes as PstChkUpgrade, cleans up and removes the checkpoint', async () => {
      const image = await p().ocAdmUpgrade();
      const run = await p().phase('post');
      expectExit(run, 0, 'post after a good upgrade');
      expect(lastLine(run.output)).to.equal('1 passed, 0 failed, 0 skipped');
      expect(run.output).to.include(`following the upgrade to ${image} requested outside this run`);
      expect(run.output).to.match(/▶ phase check/);
      expect(run.output, 'post builds nothing').to.not.match(/build Step|engine:/);
      expect(junitNames(run)).to.include('Author:ocp-e2e-NonPreRelease-PstChkUpgrade-Longduration-High-54183-');
      expect(await p().checkpointText(), 'the checkpoint is removed').to.equal(undefined);
      expect(await p().overrides(), 'the overrides are deleted').to.deep.equal([]);
      expect(existsSync(join(run.reportsDir, 'checkpoints', `${CHECKPOINT}.json`)), 'the reports keep a copy of what post went on from').to.equal(true);
    });
  });

  describe(`on ${NIGHTLY} (the report's buggy MCO)`, () => {
    it('pre passes, the upgrade by hand deadlocks, post fails with the report\'s diagnosis', async () => {
      const { pre, post, overridesLeft, checkpointLeft } = await nightly;
      expectExit(pre, 0, 'pre on the nightly');
      expectExit(post, 1, 'post after the deadlocked upgrade');
      expect(post.output).to.include('[phase upgrade] follow the upgrade started outside this run until the cluster settles failed');
      for (const pattern of DEADLOCK) expect(post.output).to.match(pattern);
      expect(lastLine(post.output)).to.equal('0 passed, 1 failed, 0 skipped');
      expect(overridesLeft, 'post cleans up after a failure too').to.deep.equal([]);
      expect(checkpointLeft, 'and then removes the checkpoint').to.equal(undefined);
    });
  });

  describe('on 4.12-ga with --phase upgrade in between', () => {
    it('upgrade before pre is refused; after pre it upgrades and records; a second upgrade is refused; post judges the recorded upgrade', async () => {
      const s = await withUpgradePhase;
      expectExit(s.early, 2, 'upgrade without a checkpoint');
      expectExit(s.pre, 0, 'pre');
      expectExit(s.upgrade, 0, 'upgrade after pre');
      expect(s.upgrade.output).to.match(/▶ phase upgrade: upgrade the cluster to the next release/);
      expect(s.upgrade.output).to.match(/--phase upgrade done: configmap\/ocp-e2e-checkpoint-01/);
      expect(s.recorded.upgrade?.version).to.match(/^4\.12\.0-0\.nightly-2022-09-12/);
      expect(s.recorded.upgrade?.recording.timeline.length, 'the recorded timeline').to.be.greaterThan(10);
      expect(s.overridesAfterUpgrade, 'the overrides stay for post').to.have.length(2);
      expectExit(s.again, 2, 'a second upgrade');
      expect(s.again.output).to.include('the cluster was already upgraded after --phase pre');
      expectExit(s.post, 0, 'post after --phase upgrade');
      expect(s.post.output).to.match(/▶ phase upgrade: the upgrade --phase upgrade ran \(4\.12\.0-0\.nightly-2022-09-08-002336 to 4\.12\.0-0\.nightly-2022-09-12-152748/);
      expect(s.overridesLeft).to.deep.equal([]);
    });
  });

  describe('on 4.12-ga, post interrupted', () => {
    // Its own cluster, started once the others are done and stopped: no more than three clusters run at once.
    let p: Pipeline | undefined;
    before(async () => {
      await Promise.allSettled([nightly, withUpgradePhase]);
      await Promise.allSettled(started.splice(0).map((done) => done.up.stop()));
      p = await Pipeline.start('4.12-ga');
    });
    after(async () => {
      await p?.up.stop();
    });

    it('SIGINT during post: what pre created is deleted, the pools settle, the checkpoint goes, exit 130', async () => {
      const r = await interruptedPost(p!);
      expectExit(r.pre, 0, 'pre');
      expect(r.code, r.output.slice(-3000)).to.equal(130);
      expect(r.output).to.match(/SIGINT/);
      expect(r.overridesLeft, 'the overrides pre created').to.deep.equal([]);
      expect(r.checkpointLeft, 'the checkpoint').to.equal(undefined);
      expect(lastLine(r.output)).to.match(/^\d+ passed, \d+ failed/);
    });
  });

  it('--phase on the reference target is refused (exit 2), pointing at cluster up', async () => {
    const run = await ocpE2e(['run', '--phase', 'pre', '--grep', '54183']);
    expectExit(run, 2, '--phase pre --target reference');
    expect(run.output).to.include('--phase pre needs --target cluster');
    expect(run.output).to.include('ocp-e2e cluster up --env-out FILE');
  });
});
