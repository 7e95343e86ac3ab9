import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { acquireWorkDir } from '../../../reference/workdir.js';

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
});
