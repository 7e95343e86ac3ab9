import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lastLine, ocpE2e, ROOT } from './cli.js';
import { KILL_MATRIX } from './kill-matrix.js';

describe('kill matrix: every spec fails when the reference breaks what it guards', function () {
  this.timeout(300_000);

  it('specs/README.md shows every row of the matrix', () => {
    const readme = readFileSync(join(ROOT, 'specs', 'README.md'), 'utf8');
    for (const row of KILL_MATRIX) {
      const breaker = row.fault ? `--fault ${row.fault}` : `--profile ${row.profile}`;
      expect(readme, `row for ${row.spec} / ${breaker}`).to.match(new RegExp(`\\|[^\\n]*${row.grep}[^\\n]*\\|[^\\n]*${breaker.replace(/[.-]/g, '\\$&')}`));
    }
  });

  for (const row of KILL_MATRIX) {
    const breaker = row.fault ? ['--fault', row.fault] : ['--profile', row.profile!];
    it(`${row.spec} fails with ${breaker.join(' ')}`, async () => {
      const r = await ocpE2e(['run', '--grep', row.grep, ...breaker], { timeoutMs: 280_000 });
      expect(r.exitCode, r.output).to.equal(1);
      expect(lastLine(r.output)).to.match(/^0 passed, [1-9]\d* failed, 0 skipped$/);
      for (const pattern of row.expect) expect(r.output).to.match(pattern);
    });
  }
});
