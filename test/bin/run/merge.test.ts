/** `ocp-e2e merge-reports`: the shards of one run merge into one report; anything else is refused with the reason. */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mergeShardReports } from '../../../bin/run/results/merge.js';
import type { RunManifest } from '../../../bin/run/results/manifest.js';

function shardDir(root: string, shard: string, files: string[], counts: RunManifest['counts'], extra: Partial<RunManifest> = {}): string {
  const dir = join(root, `shard-${shard.replace('/', '-of-')}`);
  for (const f of ['allure-results', 'junit', 'artifacts']) mkdirSync(join(dir, f), { recursive: true });
  for (const f of files) {
    const name = f.replace(/^specs\//, '').replace(/\.spec\.ts$/, '');
    writeFileSync(join(dir, 'junit', `${name}.xml`), `<testsuites><testsuite name="${name}"/></testsuites>\n`);
    writeFileSync(join(dir, 'allure-results', `${name}-uuid-result.json`), '{}');
  }
  const manifest: RunManifest = {
    suiteVersion: '0.1.0', target: 'reference', profile: '4.12-ga', shard, files, counts, runId: `r-${shard[0]}`,
    startedAt: `2026-12-01T09:0${shard[0]}:00.000Z`, finishedAt: `2026-12-01T09:1${shard[0]}:00.000Z`, ...extra,
  };
  writeFileSync(join(dir, 'run.json'), JSON.stringify(manifest));
  return dir;
}

describe('run: merging the reports of shards', () => {
  let root: string;
  beforeEach(() => { root = mkdtempSync(join(tmpdir(), 'ocp-e2e-merge-')); });

  it('copies every shard\'s Allure results and JUnit files into one folder with a run.json covering the whole suite', async () => {
    const a = shardDir(root, '1/2', ['specs/01-a.spec.ts', 'specs/03-c.spec.ts'], { passed: 2, failed: 0, skipped: 0 });
    const b = shardDir(root, '2/2', ['specs/02-b.spec.ts'], { passed: 0, failed: 1, skipped: 0 });
    const out = join(root, 'merged');
    const counts = await mergeShardReports(out, [b, a]);
    expect(counts).to.deep.equal({ passed: 2, failed: 1, skipped: 0 });
    expect(readdirSync(join(out, 'junit')).sort()).to.deep.equal(['01-a.xml', '02-b.xml', '03-c.xml']);
    expect(readdirSync(join(out, 'allure-results'))).to.have.length(3);
    const merged = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as RunManifest;
    expect(merged.files).to.deep.equal(['specs/01-a.spec.ts', 'specs/02-b.spec.ts', 'specs/03-c.spec.ts']);
    expect(merged.shard).to.equal(undefined);
    expect(merged.startedAt).to.equal('2026-12-01T09:01:00.000Z');
    expect(merged.finishedAt).to.equal('2026-12-01T09:12:00.000Z');
  });

  const refusals: Array<[string, (root: string) => string[], RegExp]> = [
    ['a missing shard', (r) => [shardDir(r, '1/3', ['specs/01-a.spec.ts'], { passed: 1, failed: 0, skipped: 0 }), shardDir(r, '3/3', ['specs/03-c.spec.ts'], { passed: 1, failed: 0, skipped: 0 })], /shard 2\/3 missing/],
    ['a shard given twice', (r) => [shardDir(r, '1/2', ['specs/01-a.spec.ts'], { passed: 1, failed: 0, skipped: 0 }), shardDir(join(r, 'again'), '1/2', ['specs/02-b.spec.ts'], { passed: 1, failed: 0, skipped: 0 })], /shard 1\/2 given twice/],
    ['shards of fan-outs of different sizes', (r) => [shardDir(r, '1/2', ['specs/01-a.spec.ts'], { passed: 1, failed: 0, skipped: 0 }), shardDir(r, '2/3', ['specs/02-b.spec.ts'], { passed: 1, failed: 0, skipped: 0 })], /not one fan-out/],
    ['a spec file in two shards', (r) => [shardDir(r, '1/2', ['specs/01-a.spec.ts'], { passed: 1, failed: 0, skipped: 0 }), shardDir(r, '2/2', ['specs/01-a.spec.ts'], { passed: 1, failed: 0, skipped: 0 })], /ran in two shards/],
    ['shards of another profile', (r) => [shardDir(r, '1/2', ['specs/01-a.spec.ts'], { passed: 1, failed: 0, skipped: 0 }), shardDir(r, '2/2', ['specs/02-b.spec.ts'], { passed: 1, failed: 0, skipped: 0 }, { profile: '4.12-nightly-2022-09-08' })], /not shards of one run: profile/],
    ['a folder without run.json', (r) => { mkdirSync(join(r, 'empty')); return [join(r, 'empty')]; }, /has no run\.json/],
    ['a run without --shard', (r) => [shardDir(r, '1/1', ['specs/01-a.spec.ts'], { passed: 1, failed: 0, skipped: 0 }, { shard: undefined })], /without --shard/],
  ];
  for (const [what, make, message] of refusals) {
    it(`refuses ${what}, naming it`, async () => {
      const error = await mergeShardReports(join(root, 'merged'), make(root)).then(() => undefined, (e: Error) => e);
      expect(error?.message).to.match(message);
    });
  }
});
