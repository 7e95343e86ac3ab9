/**
 * Interrupting `ocp-e2e run --target cluster` while a spec prepares (its override MachineConfigs rolling out), against
 * `ocp-e2e cluster up` as a real cluster: the run names the signal it got, undoes what the spec changed and waits until
 * the pools have settled back, leaves whole JUnit and Allure files and the summary line, and exits 130 or 143. When the undo
 * gets no time (OCP_E2E_INTERRUPT_GRACE_SECONDS=0), it prints exactly what is left and the commands that undo it, and
 * those commands, run with the real `oc`, do. Once the upgrade was requested it undoes nothing on the cluster (a second
 * roll-out in the middle of the upgrade's would be worse than an interrupt) and leaves the checkpoint of --phase pre instead. `oc` is on the run's PATH, as on a QE engineer's machine. The cluster is reused: after each case it must be as it was before.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { Cluster } from '../../helpers/cluster.js';
import { poolRolledOut } from '../../helpers/facts/pool.js';
import { clusterUp, lastLine, ocpE2e, ROOT, type ClusterUp } from '../support/cli.js';
import { startCli, type CliProcess } from '../support/cli-child.js';
import { TIMESTAMP } from '../../bin/run/timestamps.js';

const OC = join(ROOT, '..', 'shared', 'upstream', 'bin', 'oc');
const RUN_LABEL = 'ocp-e2e.io/run-id';
/** The spec is in its prepare phase, waiting for the pools to roll its MachineConfigs out. */
const PREPARING = /not yet rendered with tc-54183|updated, node/;
/** ...and a node is already moving to them: undoing now means rolling that back. */
const ROLLING_OUT = /(worker|master) \d\/\d updated, node/;

/** What each pool targets and whether it has rolled it out: the state the cluster must be back in. */
async function poolState(cluster: Cluster): Promise<Record<string, { target?: string; rolledOut: boolean }>> {
  const pools = await cluster.listMachineConfigPools();
  return Object.fromEntries(pools.map((p) => [p.metadata.name, { target: p.spec?.configuration?.name, rolledOut: poolRolledOut(p).ok }]));
}

async function settledBack(cluster: Cluster, wanted: Awaited<ReturnType<typeof poolState>>, ms: number): Promise<Awaited<ReturnType<typeof poolState>>> {
  const deadline = Date.now() + ms;
  let now = await poolState(cluster);
  while (JSON.stringify(now) !== JSON.stringify(wanted) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    now = await poolState(cluster);
  }
  return now;
}

function reportFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? reportFiles(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('reliability: interrupting a --target cluster run during prepare and during the upgrade', function () {
  this.timeout(300_000);
  let up: ClusterUp | undefined;
  let cluster: Cluster;
  let initial: Awaited<ReturnType<typeof poolState>>;
  let run: CliProcess | undefined;

  before(async () => {
    if (!existsSync(OC)) throw new Error(`the upstream oc is missing at ${OC} (../shared/upstream/bin/oc): this test runs the commands the suite prints with it`);
    // The fixed clock: with the skipping one a 5-node rollout takes about a second of wall time, and a signal sent on
    // its first progress line may land after the upgrade was requested. These cases are about where the signal lands.
    up = await clusterUp(['--clock', 'fixed']);
    cluster = Cluster.fromKubeconfig(up.kubeconfig);
    initial = await poolState(cluster);
    expect(Object.values(initial).every((p) => p.rolledOut), JSON.stringify(initial)).to.equal(true);
  });
  afterEach(() => {
    if (run && run.child.exitCode === null && run.child.signalCode === null) process.kill(-run.child.pid!, 'SIGKILL');
    run = undefined;
  });
  after(async () => {
    await up?.stop();
  });

  const start = (reports: string, env: Record<string, string> = {}) =>
    startCli(['run', '--target', 'cluster', '--kubeconfig', up!.kubeconfig, '--allow-disruptive', '--grep', '54183', '--reports-dir', reports], { ...up!.env, PATH: `${dirname(OC)}:${process.env.PATH ?? ''}`, ...env });

  for (const [signal, expected, other] of [['SIGINT', 130, 'SIGTERM'], ['SIGTERM', 143, 'SIGINT']] as const) {
    it(`${signal}: the MachineConfigs are deleted, the pools settle back, reports stay whole, exit ${expected}`, async () => {
      const reports = join(mkdtempSync(join(tmpdir(), 'ocp-e2e-cluster-interrupt-')), 'reports');
      run = start(reports);
      await run.waitFor(ROLLING_OUT, 200_000);
      const sentAt = Date.now();
      run.child.kill(signal);
      const { code, at } = await run.exited;
      const output = run.output();
      console.log(`${signal} during prepare: exit ${code} ${at - sentAt} ms after the signal`);
      if (process.env.RELIABILITY_DEBUG) console.log(output);
      expect(code, output.slice(-3000)).to.equal(expected);
      expect(output).to.include(`ocp-e2e: ${signal}: stopping`);
      expect(output, 'the run names only the signal it got').to.not.include(other);
      expect(output).to.include(
        'interrupted: undone: delete MachineConfigs tc-54183-new-os-image-upgrade-worker, tc-54183-new-os-image-upgrade-master, then wait until pools worker, master settle without them',
      );
      expect(lastLine(output)).to.match(/^\d+ passed, [1-9]\d* failed, \d+ skipped$/);

      expect((await cluster.listMachineConfigs(RUN_LABEL)).map((m) => m.metadata.name), 'MachineConfigs left').to.deep.equal([]);
      expect(await poolState(cluster), 'the pools are back on the configs they had, rolled out').to.deep.equal(initial);

      const files = reportFiles(reports);
      const junit = join(reports, 'junit', 'cluster.xml');
      expect(files).to.include(junit);
      expect(readFileSync(junit, 'utf8')).to.match(/<testsuites[\s\S]*<\/testsuites>\s*$/);
      const broken = files.filter((f) => f.endsWith('.json')).filter((f) => {
        try {
          JSON.parse(readFileSync(f, 'utf8'));
          return false;
        } catch {
          return true;
        }
      });
      expect(broken, 'Allure files cut in half').to.deep.equal([]);
    });
  }

  it('with no time to undo: prints exactly what is left and the commands, and the real oc undoes it with them', async () => {
    const reports = join(mkdtempSync(join(tmpdir(), 'ocp-e2e-cluster-interrupt-')), 'reports');
    run = start(reports, { OCP_E2E_INTERRUPT_GRACE_SECONDS: '0' });
    await run.waitFor(PREPARING, 200_000);
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    const output = run.output();
    expect(code, output.slice(-3000)).to.equal(130);
    expect(output).to.include('interrupted, with no time given to undo: left on the cluster; undo it by hand:');
    const left = (await cluster.listMachineConfigs(RUN_LABEL)).map((m) => m.metadata.name!).sort();
    expect(left, 'the MachineConfigs the interrupted spec left').to.deep.equal(['tc-54183-new-os-image-upgrade-master', 'tc-54183-new-os-image-upgrade-worker']);
    // The spec process's lines start with the wall-clock time the run received them at (bin/run/timestamps.ts).
    const deleteLine = new RegExp(`^${TIMESTAMP}\\s+(oc delete machineconfig .+)$`, 'm').exec(output)?.[1];
    expect(deleteLine, output.slice(-3000)).to.be.a('string');
    expect(deleteLine!.split(' ').slice(3).sort(), 'the printed command names exactly what is left').to.deep.equal(left);
    expect(output).to.match(new RegExp(`^${TIMESTAMP}\\s+oc get mcp worker master -w`, 'm'));

    const r = await execa(OC, [...deleteLine!.split(' ').slice(1), '--kubeconfig', up!.kubeconfig], { reject: false, all: true });
    expect(r.exitCode, r.all).to.equal(0);
    expect(await cluster.listMachineConfigs(RUN_LABEL)).to.deep.equal([]);
    expect(await settledBack(cluster, initial, 120_000), 'the pools after the printed commands').to.deep.equal(initial);
  });

  // Last: it upgrades the cluster (its post phase leaves it upgraded, without the overrides).
  it('SIGINT once the upgrade was requested: the overrides stay, a checkpoint is written, exit 130; the printed --phase post finishes and cleans up', async () => {
    const reports = join(mkdtempSync(join(tmpdir(), 'ocp-e2e-cluster-interrupt-')), 'reports');
    run = start(reports);
    await run.waitFor(/upgrade to \S+ requested with/, 200_000);
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    const output = run.output();
    expect(code, output.slice(-3000)).to.equal(130);
    expect(output).to.match(/interrupted: the upgrade to \S+ is under way: the overrides stay/);
    expect(output).to.include('checkpoint configmap/ocp-e2e-checkpoint-01-upgrade-custom-os-image-both-pools -n ocp-e2e written');
    expect(output, 'nothing on the cluster was undone').to.not.include('delete MachineConfigs');
    const kept = (await cluster.listMachineConfigs(RUN_LABEL)).map((m) => m.metadata.name!).sort();
    expect(kept, 'the overrides the upgrade must keep').to.deep.equal(['tc-54183-new-os-image-upgrade-master', 'tc-54183-new-os-image-upgrade-worker']);
    expect(await cluster.getConfigMap('ocp-e2e', 'ocp-e2e-checkpoint-01-upgrade-custom-os-image-both-pools')).to.not.equal(undefined);

    // The command it printed, as the user would paste it.
    const printed = new RegExp(`^${TIMESTAMP}\\s+(ocp-e2e run .+--phase post.*)$`, 'm').exec(output)?.[1];
    expect(printed, output.slice(-3000)).to.be.a('string');
    expect(printed).to.include(`--kubeconfig ${up!.kubeconfig}`).and.include('--grep 54183');
    const post = await ocpE2e([...printed!.split(' ').slice(1)], { env: { ...up!.env, PATH: `${dirname(OC)}:${process.env.PATH ?? ''}` }, timeoutMs: 200_000 });
    expect(post.exitCode, post.output.slice(-3000)).to.equal(0);
    expect(lastLine(post.output)).to.equal('1 passed, 0 failed, 0 skipped');
    expect(await cluster.listMachineConfigs(RUN_LABEL), 'post removed the overrides').to.deep.equal([]);
    expect(await cluster.getConfigMap('ocp-e2e', 'ocp-e2e-checkpoint-01-upgrade-custom-os-image-both-pools'), 'and the checkpoint').to.equal(undefined);
  });
});
