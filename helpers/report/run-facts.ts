/**
 * What identifies a run in its report: the target, its API URL and version, the reference's profile, faults, clock and
 * seed, and the versions of the suite and of `oc`. The spec process writes one small JSON file of facts per spec file
 * into the Allure results folder (emptied with it by the next run); `ocp-e2e report` turns them into Allure's
 * Environment panel and into labels to filter by.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cliClientVersion } from '../cli.js';
import { describeClusterShape } from '../facts/cluster-shape.js';
import { nodesOfPool } from '../facts/pool.js';
import { maskSecrets } from '../secrets.js';
import type { ApiObject, MachineConfigPool, Node } from '../types.js';

export interface RunFacts {
  /** The spec file these facts were seen by (each gets its own reference cluster). */
  spec: string;
  target: 'reference' | 'cluster';
  apiUrl: string;
  clusterVersion?: string;
  profile?: string;
  faults?: string[];
  timeFactor: number;
  seed?: string;
  suiteVersion: string;
  ocVersion?: string;
  /** The nodes as the spec found them: masters, workers (or compact, single-node) and their architectures. */
  shape?: string;
  /**
   * Each pool as the spec found it: its nodes, and whether it was paused or in on-cluster image mode; what a spec's
   * skip or a pool's wait is read against.
   */
  pools?: string[];
}

/** Files of facts carry this prefix; the report leaves them out of the results it hands to Allure. */
export const FACTS_FILE_PREFIX = 'ocp-e2e-run-facts-';

export async function writeRunFacts(resultsDir: string, facts: RunFacts): Promise<void> {
  await mkdir(resultsDir, { recursive: true });
  const name = `${FACTS_FILE_PREFIX}${facts.spec.replace(/[^A-Za-z0-9._-]/g, '_')}-${process.pid}.json`;
  await writeFile(join(resultsDir, name), JSON.stringify(facts, (_k, v: unknown) => (typeof v === 'string' ? maskSecrets(v) : v), 2));
}

/** Every fact file in a results folder; unreadable ones are skipped (a half-written file of a killed run). */
export function readRunFacts(resultsDir: string): RunFacts[] {
  const facts: RunFacts[] = [];
  for (const name of readdirSync(resultsDir).filter((n) => n.startsWith(FACTS_FILE_PREFIX)).sort()) {
    try {
      facts.push(JSON.parse(readFileSync(join(resultsDir, name), 'utf8')) as RunFacts);
    } catch {
      // a fact file cut short says nothing reliable; the report goes on without it
    }
  }
  return facts;
}

/** `oc version --client` as one line, or undefined when `oc` is not installed. */
export async function ocClientVersion(): Promise<string | undefined> {
  const stdout = await cliClientVersion('oc');
  if (stdout === undefined) return undefined;
  const line = stdout.split('\n').find((l) => /version/i.test(l)) ?? stdout.split('\n')[0];
  return line?.replace(/^Client Version:\s*/i, '').trim() || undefined;
}

/** One value per key; where spec files saw different values (a fresh reference cluster each), all of them. */
export function environmentOf(facts: RunFacts[]): Record<string, string> {
  const join = (values: (string | undefined)[]) => [...new Set(values.filter((v): v is string => Boolean(v)))].join(', ');
  const env: Record<string, string> = {
    target: join(facts.map((f) => (f.target === 'reference' ? 'embedded reference cluster' : 'cluster'))),
    'API URL': join(facts.map((f) => f.apiUrl)),
    'cluster version': join(facts.map((f) => f.clusterVersion)),
    profile: join(facts.map((f) => f.profile)),
    faults: join(facts.map((f) => (f.faults?.length ? f.faults.join(' ') : f.target === 'reference' ? 'none' : undefined))),
    'time factor': join(facts.map((f) => (f.timeFactor === 1 ? '1 (real time)' : `${f.timeFactor} cluster s per wall s`))),
    seed: join(facts.map((f) => f.seed)),
    'suite version': join(facts.map((f) => f.suiteVersion)),
    'oc version': join(facts.map((f) => f.ocVersion)) || 'oc not installed',
    'cluster shape': join(facts.map((f) => f.shape)),
    pools: join(facts.map((f) => f.pools?.join('; '))),
  };
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
}

/** Java properties text (Allure's environment.properties): `key = value`, with the characters the format needs escaped. */
export function toProperties(values: Record<string, string>): string {
  const escape = (s: string, isKey: boolean) =>
    s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(isKey ? /[ =:#!]/g : /^[ ]|[#!]/g, (c) => `\\${c}`);
  return `${Object.entries(values).map(([k, v]) => `${escape(k, true)}=${escape(v, false)}`).join('\n')}\n`;
}

/** What the facts are read from: the connected cluster, its discovered capabilities and the run's target. */
export interface FactSources {
  spec: string;
  target: 'reference' | 'cluster';
  apiUrl: string;
  clusterVersion?: string;
  timeFactor: number;
  /** The reference cluster's info ConfigMap data (profile, faults, seed), when the target is one. */
  referenceInfo?: Record<string, string>;
  /** The cluster as the session's watcher holds it: its nodes, pools and MachineOSConfigs (where image mode is served). */
  snapshot?: { nodes: ReadonlyMap<string, Node>; pools: ReadonlyMap<string, MachineConfigPool>; machineOSConfigs?: ReadonlyMap<string, ApiObject> };
}

/** "3 master(s), 2 worker(s); amd64" (the architectures as the nodes report them, each with its count when mixed). */
export function shapeFact(snapshot: NonNullable<FactSources['snapshot']>): string {
  const arches = new Map<string, number>();
  for (const node of snapshot.nodes.values()) {
    const arch = node.status?.nodeInfo?.architecture ?? 'unknown architecture';
    arches.set(arch, (arches.get(arch) ?? 0) + 1);
  }
  const sorted = [...arches].sort(([a], [b]) => a.localeCompare(b));
  const archText = sorted.length === 1 ? sorted[0]![0] : sorted.map(([a, n]) => `${a} ×${n}`).join(', ');
  return `${describeClusterShape(snapshot)}; ${archText}`;
}

/** "worker: 2 node(s), paused", "infra-im: 1 node(s), on-cluster image mode (MachineOSConfig infra-im)", by name. */
export function poolFacts(snapshot: NonNullable<FactSources['snapshot']>): string[] {
  const pools = [...snapshot.pools.values()];
  const moscs = [...(snapshot.machineOSConfigs?.values() ?? [])] as Array<ApiObject & { spec?: { machineConfigPool?: { name?: string } } }>;
  return pools
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))
    .map((pool) => {
      const notes = [`${nodesOfPool(pool, pools, snapshot.nodes.values()).length} node(s)`];
      if (pool.spec?.paused) notes.push('paused');
      const mosc = moscs.find((m) => m.spec?.machineConfigPool?.name === pool.metadata.name);
      if (mosc) notes.push(`on-cluster image mode (MachineOSConfig ${mosc.metadata.name})`);
      return `${pool.metadata.name}: ${notes.join(', ')}`;
    });
}

const SUITE_VERSION = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
})();

export async function gatherRunFacts(sources: FactSources): Promise<RunFacts> {
  const info = sources.referenceInfo;
  return {
    spec: sources.spec,
    target: sources.target,
    apiUrl: sources.apiUrl,
    clusterVersion: sources.clusterVersion,
    profile: info?.profile,
    faults: info ? (info.faults ?? '').split(',').filter(Boolean) : undefined,
    timeFactor: sources.timeFactor,
    seed: info?.seed,
    suiteVersion: SUITE_VERSION,
    ocVersion: await ocClientVersion(),
    ...(sources.snapshot ? { shape: shapeFact(sources.snapshot), pools: poolFacts(sources.snapshot) } : {}),
  };
}
