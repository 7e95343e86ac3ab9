/**
 * The run command's options read the reference's profiles and the spec count from their one source (the registry of
 * profiles, specs/), and bin/ has no import circle (options.ts and preflight/inputs.ts once imported each other).
 */
import { expect } from 'chai';
import { Command } from 'commander';
import { execa } from 'execa';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { defineRunOptions, profileOf } from '../../../bin/run/options.js';
import { ROOT, SPECS_DIR } from '../../../bin/run/paths.js';
import { specFileNames } from '../../../bin/run/specs.js';
import { DEFAULT_PROFILE, PROFILE_NAMES } from '../../../reference/profiles/index.js';

const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');

/** dependency-cruiser over `folder` of `tree` with one rule: no module reaches itself again. */
async function circles(tree: string, folder: string): Promise<{ exitCode: number; output: string }> {
  const config = join(mkdtempSync(join(tmpdir(), 'ocp-e2e-circles-')), 'config.cjs');
  writeFileSync(config, `module.exports = { forbidden: [{ name: 'no-circular', severity: 'error', from: {}, to: { circular: true } }],
    options: { doNotFollow: { path: 'node_modules' }, tsPreCompilationDeps: true, includeOnly: '^${folder}/', enhancedResolveOptions: { extensions: ['.ts', '.js'] } } };`);
  try {
    const r = await execa(DEPCRUISE, ['--config', config, '--output-type', 'err', folder], { cwd: tree, reject: false, all: true });
    return { exitCode: r.exitCode ?? -1, output: r.all ?? '' };
  } finally {
    rmSync(dirname(config), { recursive: true, force: true });
  }
}

describe('run options', function () {
  this.timeout(60_000);

  it('--profile takes the names of the registry of profiles, and a run without one uses its default', () => {
    const option = defineRunOptions(new Command('run')).options.find((o) => o.long === '--profile')!;
    expect(option.argChoices).to.deep.equal([...PROFILE_NAMES]);
    expect(option.description).to.include(`(default: ${DEFAULT_PROFILE})`);
    expect(profileOf({})).to.equal(DEFAULT_PROFILE);
    expect(profileOf({ profile: PROFILE_NAMES[PROFILE_NAMES.length - 1] })).to.equal(PROFILE_NAMES[PROFILE_NAMES.length - 1]);
  });

  it('--grep says how many spec files there are, counted in specs/', () => {
    const names = readdirSync(SPECS_DIR).filter((n) => n.endsWith('.spec.ts'));
    expect(specFileNames()).to.deep.equal([...names].sort());
    const option = defineRunOptions(new Command('run')).options.find((o) => o.long === '--grep')!;
    expect(option.description).to.include(`(default: all ${names.length} specs)`);
  });

  it('bin/ has no import circle, and the check finds one where there is', async () => {
    const clean = await circles(ROOT, 'bin');
    expect(clean.exitCode, clean.output).to.equal(0);
    const tree = mkdtempSync(join(tmpdir(), 'ocp-e2e-circle-fixture-'));
    try {
      mkdirSync(join(tree, 'bin', 'run', 'preflight'), { recursive: true });
      writeFileSync(join(tree, 'bin', 'run', 'options.ts'), `import { check } from './preflight/inputs.js';\nexport interface RunOptions { toImage?: string }\nexport const validate = check;\n`);
      writeFileSync(join(tree, 'bin', 'run', 'preflight', 'inputs.ts'), `import type { RunOptions } from '../options.js';\nexport const check = (o: RunOptions) => o;\n`);
      const circular = await circles(tree, 'bin');
      expect(circular.exitCode).to.not.equal(0);
      expect(circular.output).to.include('no-circular');
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });
});
