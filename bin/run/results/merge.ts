/**
 * One report from the shards of a CI fan-out: checks that the reports folders are the n shards of one run (same
 * suite version, target and selection; each shard once; no spec file twice), then copies their Allure results,
 * JUnit files and failure artefacts into one folder with a run.json covering them all.
 */
import { cp, readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { addCounts, NO_TESTS, type Counts } from './counts.js';
import { readManifest, writeManifest, type RunManifest } from './manifest.js';
import { prepareReportsDir, REPORT_FOLDERS } from './reports-dir.js';
import { UsageError } from '../usage-error.js';

export async function mergeShardReports(outDir: string, shardDirs: string[]): Promise<Counts> {
  const out = resolve(outDir);
  const dirs = shardDirs.map((d) => resolve(d));
  if (dirs.includes(out)) throw new UsageError(`--out ${outDir} is one of the shards' folders: merge into a new folder`);
  const read = await Promise.allSettled(dirs.map(async (dir) => {
    const m = await readManifest(dir).catch((error: Error) => { throw new UsageError(error.message); });
    if (!m) throw new UsageError(`${dir} has no run.json: not the reports folder of an \`ocp-e2e run\``);
    if (!m.shard) throw new UsageError(`${dir} is the report of a run without --shard: nothing to merge it with`);
    return m;
  }));
  // The first bad folder in the order given is the one named, whichever read failed first.
  const refused = read.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (refused) throw refused.reason;
  const manifests = read.map((r) => (r as PromiseFulfilledResult<RunManifest>).value);
  checkShardsOfOneRun(dirs, manifests);
  await prepareReportsDir(out);
  for (const dir of dirs) {
    for (const folder of REPORT_FOLDERS) {
      const from = join(dir, folder);
      if (!existsSync(from)) continue;
      for (const name of await readdir(from)) {
        await cp(join(from, name), join(out, folder, name), { recursive: true, errorOnExist: true, force: false });
      }
    }
  }
  const counts = manifests.map((m) => m.counts).reduce(addCounts, NO_TESTS);
  const first = manifests[0]!;
  await writeManifest(out, {
    ...first,
    shard: undefined,
    files: manifests.flatMap((m) => m.files).sort(),
    counts,
    startedAt: manifests.map((m) => m.startedAt).sort()[0]!,
    finishedAt: manifests.map((m) => m.finishedAt).sort().at(-1)!,
    interruptedBy: manifests.find((m) => m.interruptedBy)?.interruptedBy,
  });
  return counts;
}

function checkShardsOfOneRun(dirs: string[], manifests: RunManifest[]): void {
  const first = manifests[0]!;
  const count = Number(first.shard!.split('/')[1]);
  const seen = new Map<number, string>();
  const files = new Map<string, string>();
  manifests.forEach((m, k) => {
    const [index, n] = m.shard!.split('/').map(Number) as [number, number];
    for (const key of ['suiteVersion', 'target', 'profile', 'grep'] as const) {
      if (m[key] !== first[key]) throw new UsageError(`${dirs[k]} and ${dirs[0]} are not shards of one run: ${key} ${JSON.stringify(m[key])} vs ${JSON.stringify(first[key])}`);
    }
    if (n !== count) throw new UsageError(`${dirs[k]} is shard ${m.shard} but ${dirs[0]} is shard ${first.shard}: not one fan-out`);
    if (seen.has(index)) throw new UsageError(`shard ${m.shard} given twice: ${seen.get(index)} and ${dirs[k]}`);
    seen.set(index, dirs[k]!);
    for (const f of m.files) {
      if (files.has(f)) throw new UsageError(`${f} ran in two shards (${files.get(f)} and ${dirs[k]}): the shards did not split the same spec list`);
      files.set(f, dirs[k]!);
    }
  });
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length) throw new UsageError(`shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing: the merged report would not cover the whole suite`);
}
