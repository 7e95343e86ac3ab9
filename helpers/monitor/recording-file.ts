/**
 * A recording on disk in the reports folder (`recordings/`), written when the upgrade's recorder stops, so the
 * upgrade can be judged again later (by a newer suite, or one recorded on a real cluster) without the cluster.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { maskDeep } from '../secrets.js';
import { judgeRecording, type JudgedInvariant } from './judge.js';
import { RECORDING_FORMAT, type UpgradeRecording } from './recording.js';

/**
 * Where a recording goes in a reports folder, named by the upgrade it recorded: its target release and its start
 * (`recordings/upgrade-to-<version>-<yyyymmddThhmmss>.json`), so the upgrades of one run never overwrite each other.
 */
export function recordingPath(reportsDir: string, recording: Pick<UpgradeRecording, 'target' | 'startedAt'>): string {
  const release = recording.target.version ?? recording.target.image?.replace(/^.*[@:/]/, '') ?? 'unknown';
  const stamp = recording.startedAt.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return join(reportsDir, 'recordings', `upgrade-to-${release.replace(/[^A-Za-z0-9._-]+/g, '-')}-${stamp}.json`);
}

/** Writes the recording (secrets masked) as JSON. */
export async function writeRecording(path: string, recording: UpgradeRecording): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(maskDeep(recording), null, 2)}\n`);
}

/** A recording read back: refused, with the reason, when it is not one this suite can judge. */
export function parseRecording(text: string, where: string): UpgradeRecording {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${where} is not JSON: ${(error as Error).message}`);
  }
  const r = value as Partial<UpgradeRecording> | null;
  if (!r || typeof r !== 'object') throw new Error(`${where} holds no upgrade recording`);
  if (r.format !== RECORDING_FORMAT) throw new Error(`${where} is a recording of format ${String(r.format)}; this suite reads format ${RECORDING_FORMAT}`);
  if (!Array.isArray(r.timeline) || typeof r.startedAt !== 'string' || typeof r.timeFactor !== 'number' || typeof r.target !== 'object') {
    throw new Error(`${where} lacks timeline, startedAt, timeFactor or target: not an upgrade recording`);
  }
  return r as UpgradeRecording;
}

export async function readRecording(path: string): Promise<UpgradeRecording> {
  return parseRecording(await readFile(path, 'utf8'), path);
}

/** Judges a recording written earlier, as the run that wrote it did. */
export async function judgeRecordingFile(path: string): Promise<JudgedInvariant[]> {
  return judgeRecording(await readRecording(path));
}

/**
 * Writes the recording into the reports folder and returns where; a folder that cannot be written costs the file (said
 * on stderr), never the upgrade's own outcome.
 */
export async function keepRecording(reportsDir: string, recording: UpgradeRecording): Promise<string | undefined> {
  const path = recordingPath(reportsDir, recording);
  try {
    await writeRecording(path, recording);
    return path;
  } catch (error) {
    console.error(`    could not write the upgrade recording to ${path}: ${(error as Error).message}`);
    return undefined;
  }
}
