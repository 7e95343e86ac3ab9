/**
 * The report's flow (spec 54183 through `ocp-e2e run --target cluster`, the real-cluster code path) on a reference
 * cluster of this process while the test disrupts one of its components mid-upgrade, and what each profile's run must
 * show. Shared by test/reference/upgrade-restarts.test.ts (seed 1) and the benchmark that runs the scenarios over many
 * seeds (bench/reliability/restart-seeds.ts, issue 46 item 4).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEXT_VERSION, startReferenceCluster, type ReferenceCluster } from '../../../reference/index.js';
import { KubeClient, type KubeObject } from '../../../lib/kube/client.js';
import { KILL_MATRIX } from '../../bin/support/kill-matrix.js';
import { TEST_WORK_DIR } from './cluster.js';
import { referenceClientEnv, startCli } from '../../support/cli-child.js';

export const GA = '4.12-ga';
export const NIGHTLY = '4.12-nightly-2022-09-08';
const DEADLOCK = KILL_MATRIX.find((row) => row.grep === '54183' && row.profile === NIGHTLY)!.expect;
/** A registry outage shorter than the daemon's pull retries (158 cluster seconds): it must cost nothing but time. */
const SHORT_OUTAGE_CLUSTER_MS = 120_000;

export interface Disruption {
  /** What the test does, for its title. */
  what: string;
  /** Options the cluster needs for it. */
  options?: (dir: string) => { apiDataDir?: string };
  /** Runs once the upgrade is rolling the masters. */
  apply(run: RunContext): Promise<void>;
  /** What the report's timeline must show afterwards. */
  timeline: RegExp;
}

export interface RunContext {
  cluster: ReferenceCluster;
  /** A master node updating to the new release's config. */
  node: string;
  /** Resolves at the next reference log line matching. */
  nextLog(pattern: RegExp, timeoutMs: number): Promise<string>;
}

export const DISRUPTIONS: Disruption[] = [
  {
    what: 'the API server restarted from its data directory',
    options: (dir) => ({ apiDataDir: join(dir, 'api-data') }),
    apply: ({ cluster }) => cluster.restartApiServer(500),
    timeline: /openshift-kube-apiserver\/kube-apiserver-\S+[\s\S]*Started container kube-apiserver/,
  },
  {
    what: 'the machine-config operator killed and restarted',
    apply: ({ cluster }) => cluster.restartComponent('machine-config-operator', 'killed by the test'),
    timeline: /Stopping container machine-config-operator: killed by the test/,
  },
  {
    what: 'the machine-config controller (template, render, node controllers) killed and restarted',
    apply: ({ cluster }) => cluster.restartComponent('machine-config-controller', 'killed by the test'),
    timeline: /Stopping container machine-config-controller: killed by the test/,
  },
  {
    what: 'the CVO killed and restarted',
    apply: ({ cluster }) => cluster.restartComponent('cluster-version-operator', 'killed by the test'),
    timeline: /Stopping container cluster-version-operator: killed by the test/,
  },
  {
    what: "an updating master's daemon killed and restarted",
    apply: ({ cluster, node }) => cluster.restartDaemon(node, 'killed by the test'),
    timeline: /machine-config-daemon-\S+[\s\S]*Stopping container machine-config-daemon: killed by the test/,
  },
  {
    what: 'the registry unreachable while a node pulls, for less than the daemon retries',
    apply: async ({ cluster, nextLog }) => {
      // cut it off the moment a node starts pulling, so the outage is sure to hit a pull
      await nextLog(/mcd\/\S+: pulling /, 60_000);
      cluster.setRegistryReachable(false);
      await nextLog(/pull of \S+ failed \(try 1 of/, 10_000);
      await cluster.sleep(SHORT_OUTAGE_CLUSTER_MS);
      cluster.setRegistryReachable(true);
    },
    // an outage is no restart: the timeline must show that the node never degraded
    timeline: /./,
  },
];

/** Every file of the run's reports, as one text (the timeline is attached as YAML there). */
function reportText(dir: string): string {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ya?ml|json|txt)$/.test(name)) out.push(readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  return out.join('\n');
}

export interface Outcome {
  profile: string;
  seed: number;
  code: number;
  output: string;
  wallS: number;
  reports: string;
  log: string[];
}

export interface Started {
  profile: string;
  seed: number;
  dir: string;
  cluster: ReferenceCluster;
  log: string[];
  waiters: Set<{ pattern: RegExp; resolve: (line: string) => void }>;
}

/** A cluster of `profile` for `disruption`, on the profile's registry storage kept between runs (pushed once). */
export async function startCluster(profile: string, disruption: Disruption, seed = 1): Promise<Started> {
  const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-restarts-'));
  const log: string[] = [];
  const waiters = new Set<{ pattern: RegExp; resolve: (line: string) => void }>();
  try {
    const cluster = await startReferenceCluster({
      profile,
      seed,
      workDir: join(TEST_WORK_DIR, '..', `reference-restarts-${profile}`),
      ...disruption.options?.(dir),
      log: (line) => {
        log.push(line);
        for (const w of [...waiters]) if (w.pattern.test(line)) (waiters.delete(w), w.resolve(line));
      },
    });
    return { profile, seed, dir, cluster, log, waiters };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Runs spec 1 against the started cluster, applies the disruption once a master updates to the next release, stops the cluster. */
export async function runDisrupted({ profile, seed, dir, cluster, log, waiters }: Started, disruption: Disruption): Promise<Outcome> {
  try {
    const nextLog = (pattern: RegExp, timeoutMs: number): Promise<string> =>
      new Promise((resolve, reject) => {
        const waiter = { pattern, resolve: (line: string) => (clearTimeout(timer), resolve(line)) };
        const timer = setTimeout(() => (waiters.delete(waiter), reject(new Error(`no reference log line ${pattern} within ${timeoutMs} ms`))), timeoutMs);
        waiters.add(waiter);
      });
    const started = Date.now();
    const run = startCli(['run', '--target', 'cluster', '--kubeconfig', cluster.kubeconfigPath, '--allow-disruptive', '--grep', '54183', '--reports-dir', join(dir, 'reports')], referenceClientEnv(cluster));
    const node = await masterRollingToNext(cluster, nextLog, run.exited).catch((error: Error) => {
      throw new Error(`${profile}: ${error.message}; output:\n${run.output().slice(-3000)}\nreference log:\n${log.slice(-150).join('\n')}`);
    });
    await disruption.apply({ cluster, node, nextLog });
    const { code } = await run.exited;
    return { profile, seed, code, output: run.output(), wallS: (Date.now() - started) / 1000, reports: reportText(join(dir, 'reports')), log };
  } finally {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Waits until a master starts updating to the next release's config; returns its name. The moment is taken from the
 * reference's own log, in its process, as the daemon starts: on the skipping clock a master's whole update, or the
 * nightly's whole wait for it, can pass between two polls of the API. The upgrade's request is polled for first, so
 * that the masters' updates of the prepare phase (to the layered image) do not count.
 */
async function masterRollingToNext(cluster: ReferenceCluster, nextLog: RunContext['nextLog'], exited: Promise<unknown>): Promise<string> {
  const k = KubeClient.fromFile(cluster.kubeconfigPath);
  let over = false;
  void exited.then(() => (over = true));
  const deadline = Date.now() + 300_000;
  for (;;) {
    const cv = await k.get<KubeObject>('ClusterVersion', 'version').catch(() => undefined);
    if ((cv?.spec as { desiredUpdate?: unknown } | undefined)?.desiredUpdate) break;
    if (over) throw new Error('the run ended before it requested the upgrade');
    if (Date.now() > deadline) throw new Error('the run requested no upgrade within 300 s');
    await new Promise((r) => setTimeout(r, 20));
  }
  const line = await Promise.race([
    nextLog(/mcd\/\S+: Starting update from \S+ to rendered-master-/, 300_000),
    exited.then(() => Promise.reject(new Error('the run ended before any master started updating to the next release'))),
  ]);
  return /mcd\/(\S+): Starting update/.exec(line)![1]!;
}

/** What the run got wrong, with its output and the reference's log (chai would cut them short), or undefined. */
export function wrongOf(o: Outcome, disruption: Disruption): string | undefined {
  const evidence = (): string => `\noutput:\n${o.output.slice(-4000)}\nreference log:\n${o.log.slice(-80).join('\n')}`;
  const last = o.output.trimEnd().split('\n').at(-1);
  if (o.profile === GA) {
    if (o.code !== 0 || last !== '1 passed, 0 failed, 0 skipped') return `${o.profile}: exit ${o.code}, "${last}" (expected it to pass)${evidence()}`;
  } else {
    if (o.code !== 1) return `${o.profile}: exit ${o.code}, "${last}" (expected 1: the deadlock)${evidence()}`;
    const missing = DEADLOCK.filter((p) => !p.test(o.output));
    if (missing.length) return `${o.profile}: failed without the deadlock diagnosis (no ${missing.join(', ')})${evidence()}`;
  }
  if (!disruption.timeline.test(o.reports)) return `${o.profile}: the timeline does not show the disruption (${disruption.timeline})`;
  // every upgrade replaces the operator with the new release's: Killing on the old pod, Started on a new one
  const replaced = new RegExp(`Stopping container machine-config-operator: new release ${NEXT_VERSION.replace(/\./g, '\\.')}`);
  if (!replaced.test(o.reports)) return `${o.profile}: the timeline does not show the operator replaced at the version change`;
  if (disruption.what.startsWith('the registry')) {
    const log = o.log.join('\n');
    if (!/pull of \S+ failed \(try 1 of/.test(log)) return `${o.profile}: the outage hit no pull`;
    if (/failed \(try 8 of 8\)/.test(log)) return `${o.profile}: a pull exhausted its retries`;
    if (/state=Degraded/.test(o.reports)) return `${o.profile}: a node degraded`;
  }
  return undefined;
}

/** Both profiles through one disruption under one seed, side by side (the clusters start one after the other). */
export async function runBoth(disruption: Disruption, seed = 1): Promise<[Outcome, Outcome]> {
  const ga = await startCluster(GA, disruption, seed);
  const nightly = await startCluster(NIGHTLY, disruption, seed).catch(async (error) => {
    await ga.cluster.stop();
    rmSync(ga.dir, { recursive: true, force: true });
    throw error;
  });
  return Promise.all([runDisrupted(ga, disruption), runDisrupted(nightly, disruption)]);
}
