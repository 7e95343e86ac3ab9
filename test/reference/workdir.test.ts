import { expect } from 'chai';
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { acquireWorkDir } from '../../reference/workdir.js';

describe('reference work dir', () => {
  let root: string;
  beforeEach(async () => (root = await mkdtemp(path.join(tmpdir(), 'ref-workdir-'))));
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('takes the shared folder when free and gives a private one while it is held', async () => {
    const shared = path.join(root, 'reference');
    const first = await acquireWorkDir(shared);
    expect(first).to.include({ path: shared, private: false });
    const second = await acquireWorkDir(shared);
    expect(second.private).to.equal(true);
    expect(second.path).to.not.equal(shared);
    await second.release();
    expect(existsSync(second.path)).to.equal(false);
    await first.release();
    const third = await acquireWorkDir(shared);
    expect(third).to.include({ path: shared, private: false });
    await third.release();
  });

  it('ignores a lock left by a process that is gone', async () => {
    const shared = path.join(root, 'reference');
    await acquireWorkDir(shared).then((w) => w.release());
    await writeFile(path.join(shared, 'in-use.pid'), '999999999\n');
    const w = await acquireWorkDir(shared);
    expect(w.private).to.equal(false);
    await w.release();
  });

  it('gives the shared folder to exactly one of several processes starting at the same moment', async function () {
    this.timeout(60_000);
    const shared = path.join(root, 'reference');
    const module = pathToFileURL(fileURLToPath(new URL('../../reference/workdir.ts', import.meta.url))).href;
    // each child loads the module, waits for one common instant (so the takes really overlap), takes the folder, says
    // which it got, and holds it until every child has answered
    const startAt = Date.now() + 8000;
    const script = `const { acquireWorkDir } = await import(${JSON.stringify(module)});
      while (Date.now() < ${startAt}) { /* spin to the common instant */ }
      const w = await acquireWorkDir(${JSON.stringify(shared)});
      console.log(JSON.stringify({ private: w.private }));
      await new Promise((r) => setTimeout(r, 3000));
      await w.release();`;
    const children = Array.from({ length: 6 }, () => execa(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]));
    const answers = (await Promise.all(children)).map((r) => JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { private: boolean });
    expect(answers.filter((a) => !a.private)).to.have.length(1);
  });
});
