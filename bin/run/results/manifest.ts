/**
 * reports/run.json: what a run ran and how it ended (suite version, target, shard, spec files, counts). Shards of
 * one CI fan-out are checked against each other with it when their reports are merged, and --rerun-failed reads the
 * spec files of the run from it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Counts } from './counts.js';
import { ROOT } from '../paths.js';

export const MANIFEST_FILE = 'run.json';

export interface RunManifest {
  suiteVersion: string;
  target: 'reference' | 'cluster';
  profile?: string;
  grep?: string;
  /** --phase of the run (pre, upgrade, post; absent for a whole run). */
  phase?: string;
  /** `i/n` when the run was one shard of a fan-out. */
  shard?: string;
  /** Paths of the spec files this run ran, relative to the checkout. */
  files: string[];
  counts: Counts;
  runId: string;
  startedAt: string;
  finishedAt: string;
  /** SIGINT or SIGTERM when the run was interrupted. */
  interruptedBy?: string;
}

/** The suite's version: one definition, in helpers (checkpoints carry it too). */
export { suiteVersion } from '../../../helpers/suite-version.js';

export async function writeManifest(reportsDir: string, manifest: RunManifest): Promise<void> {
  await writeFile(join(reportsDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** The manifest of a reports folder, or undefined when it has none (a folder from before run.json, or not a run). */
export async function readManifest(reportsDir: string): Promise<RunManifest | undefined> {
  const text = await readFile(join(reportsDir, MANIFEST_FILE), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as RunManifest;
  } catch (error) {
    throw new Error(`${join(reportsDir, MANIFEST_FILE)} is not JSON: ${(error as Error).message}`);
  }
}
