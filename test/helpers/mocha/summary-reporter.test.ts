import { expect } from 'chai';
import { execa } from 'execa';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** mocha on the given fixture files with only this reporter (no project config). */
function runWithReporter(...files: string[]) {
  const args = ['--no-install', 'mocha', '--no-config', '--node-option', 'import=tsx', '--extension', 'ts', '--reporter', './helpers/mocha/summary-reporter.cts'];
  return execa('npx', [...args, ...files], { cwd: repoRoot, reject: false });
}

describe('summary reporter', () => {
  it('ends a run with the plain line "N passed, N failed, N skipped"', async () => {
    const run = await runWithReporter('test/helpers/mocha/fixtures/mixed.fixture.ts');
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).to.equal('1 passed, 1 failed, 1 skipped');
    expect(run.exitCode, 'mocha exits with the number of failures').to.equal(1);
  });

  it('a run of more than 20 tests lists its 20 slowest tests and its slowest files, hooks counted, before that line', async () => {
    const run = await runWithReporter('test/helpers/mocha/fixtures/many.fixture.ts', 'test/helpers/mocha/fixtures/slow-hook.fixture.ts');
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).to.equal('22 passed, 0 failed, 0 skipped');
    const tests = lines.indexOf('slowest 20 tests (s):');
    const files = lines.indexOf('slowest 20 files (s, with their hooks):');
    expect(tests, run.stdout).to.be.greaterThan(-1);
    expect(files - tests - 1, 'twenty tests listed').to.equal(20);
    const fileLines = lines.slice(files + 1, files + 3);
    expect(fileLines[0], 'the hook makes its file the slowest').to.match(/^\s+0\.[3-9]\s+test\/helpers\/mocha\/fixtures\/slow-hook\.fixture\.ts$/);
    expect(fileLines[1]).to.match(/many\.fixture\.ts$/);
  });

  it('a short run (a suite run) prints no such lists', async () => {
    const run = await runWithReporter('test/helpers/mocha/fixtures/slow-hook.fixture.ts');
    expect(run.stdout).to.not.include('slowest');
  });
});
