/**
 * Interruption of `ocp-e2e run` (a child process, as a user runs it): SIGINT or SIGTERM partway through a spec runs
 * the cleanup (the reference cluster stopped; on a cluster target the spec's objects deleted), leaves the reports
 * folder readable (every JSON and XML file whole), and exits 130 or 143; a second signal exits at once. Every
 * process the run started (registry, mocha) must be gone afterwards. Needs the Docker engine, like the suite.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { startReferenceCluster, type ReferenceCluster } from '../../reference/index.js';
import { referenceClientEnv, startCli, type CliProcess } from '../support/cli-child.js';

/** Marks the spec at work on the cluster: the pools are rendering or rolling out its MachineConfigs. */
const MID_SPEC = /not yet rendered|updated, node/;

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Processes still alive in a process group (the CLI runs as a group leader, so all it started is in it). */
/**
 * The live processes of a process group. A zombie (state Z: exited, not yet reaped, as when its parent died first and
 * the machine's PID 1 does not reap, in a container) runs nothing and holds nothing, so it is not counted.
 */
function processGroup(pgid: number): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return out.split('\n').map((l) => l.trim())
    .filter((l) => l && Number(l.split(/\s+/)[1]) === pgid && !l.split(/\s+/)[2]!.startsWith('Z'))
    .map((l) => l.split(/\s+/).filter((_, i) => i !== 2).join(' '));
}

async function waitGroupGone(pgid: number, ms: number): Promise<string[]> {
  const deadline = Date.now() + ms;
  let left = processGroup(pgid);
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = processGroup(pgid);
  }
  return left;
}

/** Files under reports/ that do not parse: JSON that is not JSON, XML that is not closed. */
function unreadableReports(dir: string): string[] {
  return filesUnder(dir).filter((f) => {
    const text = readFileSync(f, 'utf8');
    if (f.endsWith('.json')) { try { JSON.parse(text); return false; } catch { return true; } }
    if (f.endsWith('.xml')) return !/<\/testsuites?>\s*$/.test(text);
    return false;
  });
}

describe('reliability: interrupting ocp-e2e run', function () {
  this.timeout(180_000);
  let dir: string;
  let run: CliProcess | undefined;
  let reference: ReferenceCluster | undefined;

  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-interrupt-')); });
  afterEach(async () => {
    if (run && run.child.exitCode === null && run.child.signalCode === null) {
      try { process.kill(-run.child.pid!, 'SIGKILL'); } catch { /* gone */ }
    }
    run = undefined;
    await reference?.stop();
    reference = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [signal, expected] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`${signal} mid-spec on the reference: cleanup, readable partial reports, exit ${expected}, no process left`, async () => {
      const reports = join(dir, 'reports');
      run = startCli(['run', '--grep', '54183', '--reports-dir', reports]);
      await run.waitFor(MID_SPEC, 120_000);
      const sentAt = Date.now();
      run.child.kill(signal);
      const { code, at } = await run.exited;
      const output = run.output();
      console.log(`${signal}: exit ${code} ${at - sentAt} ms after the signal`);
      expect(code, output.slice(-3000)).to.equal(expected);
      expect(output).to.match(new RegExp(`${signal}: stopping`));
      expect(unreadableReports(reports), 'report files cut in half').to.deep.equal([]);
      expect(await waitGroupGone(run.child.pid!, 5000), 'processes the run left behind').to.deep.equal([]);
    });
  }

  it('a second SIGINT exits at once; a registry it leaves running is stopped by the next start', async () => {
    run = startCli(['run', '--grep', '54183', '--reports-dir', join(dir, 'reports')]);
    await run.waitFor(MID_SPEC, 120_000);
    run.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 50));
    const secondAt = Date.now();
    run.child.kill('SIGINT');
    const { code, at } = await run.exited;
    console.log(`second SIGINT: exit ${code} ${at - secondAt} ms after it`);
    expect(at - secondAt, 'time to exit after the second signal').to.be.below(1000);
    expect(code).to.equal(130);
    // Exiting at once may leave the registry running (the cleanup was cut short); then the next reference cluster
    // started on the same storage must stop it.
    const left = await waitGroupGone(run.child.pid!, 3000);
    expect(left.filter((l) => !l.includes('docker-registry')), 'processes other than the registry left behind').to.deep.equal([]);
    if (left.length) {
      const workDir = /serve (\S+)\/registry\/registry-config-\d+\.yml/.exec(left[0]!)?.[1];
      expect(workDir, left[0]).to.be.a('string');
      reference = await startReferenceCluster({ workDir });
      expect(await waitGroupGone(run.child.pid!, 3000), 'registry of the interrupted run after the next start').to.deep.equal([]);
    }
    console.log(`second SIGINT: ${left.length ? 'the registry was left running and the next start stopped it' : 'nothing was left running'}`);
  });

  it('a reference cluster killed with SIGKILL leaves a registry that the next start on the same folder stops', async () => {
    const workDir = join(dir, 'work');
    const { spawn } = await import('node:child_process');
    const fixture = new URL('./fixtures/reference-until-killed.ts', import.meta.url).pathname;
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, workDir], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    const registry = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d) => { out += d; const m = /ready (\S+)/.exec(out); if (m) resolve(m[1]!); });
      child.once('exit', (code) => reject(new Error(`reference fixture exited with ${code}`)));
    });
    child.removeAllListeners('exit');
    child.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 300));
    const orphans = processGroup(child.pid!).filter((l) => l.includes('docker-registry'));
    console.log(`kill -9 of a reference cluster left ${orphans.length} registry process(es) serving ${registry}`);
    reference = await startReferenceCluster({ workDir });
    const left = await waitGroupGone(child.pid!, 3000);
    expect(left, 'processes of the killed cluster still running after the next start').to.deep.equal([]);
    await reference.stop();
    reference = undefined;
    expect(readdirSync(join(workDir, 'registry')).filter((f) => f === 'registry.pid' || f === 'in-use.pid')).to.deep.equal([]);
  });

  it('a reference cluster killed with SIGKILL in a private storage folder: the next start stops its registry and removes the folder', async () => {
    const workDir = join(dir, 'work');
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(workDir, { recursive: true });
    // The shared folder is held (by this live test process), so the killed cluster works in a private folder.
    writeFileSync(join(workDir, 'in-use.pid'), `${process.pid}\n`);
    const { spawn } = await import('node:child_process');
    const fixture = new URL('./fixtures/reference-until-killed.ts', import.meta.url).pathname;
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, workDir], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d) => { out += d; if (/ready /.test(out)) resolve(); });
      child.once('exit', (code) => reject(new Error(`reference fixture exited with ${code}`)));
    });
    child.removeAllListeners('exit');
    child.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 300));
    const privates = () => readdirSync(dir).filter((n) => n.startsWith('work-private-'));
    expect(privates(), 'the killed cluster worked in a private folder').to.have.length(1);
    reference = await startReferenceCluster({ workDir });
    expect(await waitGroupGone(child.pid!, 3000), 'processes of the killed cluster after the next start').to.deep.equal([]);
    await reference.stop();
    reference = undefined;
    expect(privates(), 'private folders left after the next cluster stopped').to.deep.equal([]);
  });

  it('SIGINT on a cluster target deletes what the spec created before exiting', async () => {
    reference = await startReferenceCluster({ profile: '4.12-ga' });
    run = startCli(['run', '--target', 'cluster', '--kubeconfig', reference.kubeconfigPath, '--allow-disruptive', '--grep', '54183', '--reports-dir', join(dir, 'reports')], referenceClientEnv(reference));
    await run.waitFor(MID_SPEC, 120_000);
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    expect(code, run.output().slice(-3000)).to.equal(130);
    const kc = new KubeConfig();
    kc.loadFromFile(reference.kubeconfigPath);
    const list = await kc.makeApiClient(CustomObjectsApi).listClusterCustomObject({ group: 'machineconfiguration.openshift.io', version: 'v1', plural: 'machineconfigs', labelSelector: 'ocp-e2e.io/run-id' }) as { items: Array<{ metadata: { name: string } }> };
    expect(list.items.map((i) => i.metadata.name), 'MachineConfigs of the interrupted run left on the cluster').to.deep.equal([]);
  });
});
