import { expect } from 'chai';
import { execa } from 'execa';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

describe('summary reporter', () => {
  it('ends a run with the plain line "N passed, N failed, N skipped"', async () => {
    const run = await execa(
      'npx',
      ['--no-install', 'mocha', '--no-config', '--node-option', 'import=tsx', '--extension', 'ts',
        '--reporter', './helpers/mocha/summary-reporter.cts', 'test/helpers/mocha/fixtures/mixed.fixture.ts'],
      { cwd: repoRoot, reject: false },
    );
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).to.equal('1 passed, 1 failed, 1 skipped');
    expect(run.exitCode, 'mocha exits with the number of failures').to.equal(1);
  });
});
