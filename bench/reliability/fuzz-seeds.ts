/**
 * Fuzzing soak: runs test/mock/fuzz.test.ts once per seed (in its own mocha process, so one crash cannot hide
 * another) and prints, per seed, the requests sent, the answers by class and any problem found. Slower than the CI
 * test; run it by hand after changing mock/ and record the result in bench/RESULTS.md "## reliability".
 *
 *   node --import tsx bench/reliability/fuzz-seeds.ts --seeds 1,2,3 --requests 20000
 */
import { execa } from 'execa';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};
const seeds = option('seeds', '1,2,3').split(',').map(Number);
const requests = Number(option('requests', '20000'));

let failed = 0;
for (const seed of seeds) {
  const r = await execa('npx', ['mocha', '--no-config', '--node-option', 'import=tsx', '--extension', 'ts', '--timeout', '120000', 'test/mock/fuzz.test.ts'], {
    cwd: ROOT, reject: false, all: true, env: { FUZZ_SEED: String(seed), FUZZ_REQUESTS: String(requests) },
  });
  const out = String(r.all);
  const answers = /by answer:\n((?: {2}[^ \u2714].+\n)+)/.exec(out)?.[1]?.trim().split('\n').map((l) => l.trim().replace(/\s{2,}/g, ' ')).join('; ') ?? '(none)';
  const head = /fuzz: .*/.exec(out)?.[0] ?? '(no summary: the test did not get that far)';
  const problems = /first problems:\n((?: {2}#.+\n)+)/.exec(out)?.[1]?.trim() ?? '';
  console.log(`seed ${seed}: ${r.exitCode === 0 ? 'PASS' : 'FAIL'}: ${head}\n  answers: ${answers}${problems ? `\n  problems:\n  ${problems}` : ''}`);
  if (r.exitCode !== 0) failed++;
}
process.exit(failed ? 1 : 0);
