/**
 * Every spec on the shapes of issue 43 that the representative tests (arch-shapes, disconnected) cover with spec 1
 * only: on an arm64, a multi-arch and a disconnected reference cluster each spec passes or is skipped before cluster
 * time with its reason, and none fails. Each shape runs as `bin/ocp-e2e run` (a fresh cluster per spec file) on
 * 4.12-ga, and as `--one-cluster` (one cluster, one upgrade that every upgrade spec judges) on 4.20-to-4.21, whose
 * IDMS/ITMS, 4.16+ architecture check and on-cluster image mode 4.12 lacks.
 */
import { expect } from 'chai';
import { lastLine, ocpE2e } from '../support/cli.js';
import { SPEC_COUNT } from './support/spec-files.js';

/** The reasons a spec may be skipped on these shapes, each said before cluster time. */
const ALLOWED_SKIPS = [
  /kernel-rt \(kernelType: realtime\) exists for x86_64 only/,
  /on-cluster image mode does not support multi-arch compute/,
  // spec 19 judges an upgrade to 4.22 only
  /an osImageURL override on an image-mode pool: the upgrade goes to 4\.(?:19|2[01])\.\d+: /,
  /does not apply to OpenShift/,
];

function skipLines(output: string): string[] {
  return output.split('\n').filter((l) => /\bSKIP \[sig-mco\]/.test(l));
}

const SHAPES: Array<{ shape: string[]; why: string }> = [
  { shape: ['--arch', 'arm64'], why: 'every node arm64' },
  { shape: ['--arch', 'multi'], why: 'amd64 masters, amd64 and arm64 workers' },
  { shape: ['--disconnected'], why: 'quay.io reached only through the mirror sets' },
];

describe('ocp-e2e run: every spec on the arm64, multi-arch and disconnected shapes', function () {
  this.timeout(900_000);

  for (const { shape, why } of SHAPES) {
    for (const [profile, mode] of [['4.12-ga', []], ['4.20-to-4.21', ['--one-cluster']]] as const) {
      it(`${shape.join(' ')} (${why}) on ${profile}${mode.length ? ' --one-cluster' : ''}: every spec passes or is skipped with its reason before cluster time`, async () => {
        const r = await ocpE2e(['run', ...shape, '--profile', profile, ...mode], { timeoutMs: 840_000 });
        expect(r.exitCode, r.output.slice(-5000)).to.equal(0);
        const summary = /^(\d+) passed, 0 failed, (\d+) skipped$/.exec(lastLine(r.output));
        expect(summary, lastLine(r.output)).to.not.equal(null);
        const skips = skipLines(r.output);
        for (const line of skips) expect(ALLOWED_SKIPS.some((p) => p.test(line)), `a skip for no reason of this shape: ${line}`).to.equal(true);
        // every spec file ran or was skipped: per file, each has its summary line; on one cluster, each its test
        const [, passed, skipped] = summary!.map(Number);
        if (mode.length === 0) expect(new Set([...r.output.matchAll(/(\d\d-[a-z0-9-]+\.spec\.ts): \d+ passed/g)].map((m) => m[1])).size, 'spec files with a summary line').to.equal(SPEC_COUNT);
        else expect(passed! + skipped!, 'tests run or skipped').to.be.at.least(SPEC_COUNT);
      });
    }
  }
});
