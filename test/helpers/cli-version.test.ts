/**
 * helpers/cli.ts cliClientVersion: `oc version --client` is asked once per binary, not once per process, and asked
 * again of another build; a CLI that does not run is asked every time.
 */
import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { writeFakeOc } from '../support/fake-oc.js';

const CLI = fileURLToPath(new URL('../../helpers/cli.ts', import.meta.url));

describe('helpers/cli: the CLI client version, asked once per binary', function () {
  this.timeout(60_000);
  let dir: string;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-cli-version-'));
    await mkdir(path.join(dir, 'bin'));
    await mkdir(path.join(dir, 'tmp'));
  });
  after(async () => dir && rm(dir, { recursive: true, force: true }));

  /** cliClientVersion('oc') in a process of its own, with the fake bin/ first on PATH and a private TMPDIR. */
  const askInNewProcess = async (): Promise<string> => {
    const script = `const { cliClientVersion } = await import(${JSON.stringify(CLI)}); console.log(JSON.stringify(await cliClientVersion('oc') ?? null));`;
    const r = await execa(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { PATH: `${path.join(dir, 'bin')}:/usr/bin:/bin`, TMPDIR: path.join(dir, 'tmp') },
    });
    return JSON.parse(String(r.stdout)) as string;
  };
  const calls = async () => (await readFile(path.join(dir, 'bin', 'calls'), 'utf8').catch(() => '')).split('\n').filter(Boolean);

  it('two processes, one binary: oc is asked once; another build of it is asked again', async () => {
    await writeFakeOc(path.join(dir, 'bin'), '');
    expect(await askInNewProcess()).to.equal('Client Version: 4.12.0');
    expect(await askInNewProcess()).to.equal('Client Version: 4.12.0');
    expect(await calls()).to.deep.equal(['version --client']);
    const later = new Date(Date.now() + 60_000);
    await utimes(path.join(dir, 'bin', 'oc'), later, later);
    expect(await askInNewProcess()).to.equal('Client Version: 4.12.0');
    expect(await calls(), 'the binary changed').to.deep.equal(['version --client', 'version --client']);
  });

  it('a CLI that does not run is no answer, and is asked again by the next process', async () => {
    await rm(path.join(dir, 'bin', 'calls'), { force: true });
    const broken = path.join(dir, 'bin', 'oc');
    await writeFile(broken, `#!/bin/sh\necho "$*" >> "${path.join(dir, 'bin', 'calls')}"\nexit 1\n`);
    await chmod(broken, 0o755);
    expect(await askInNewProcess()).to.equal(null);
    expect(await askInNewProcess()).to.equal(null);
    expect(await calls()).to.deep.equal(['version --client', 'version --client']);
  });
});
