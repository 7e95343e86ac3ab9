/**
 * A node's /proc and /run files are rewritten while commands on the node read them (a second read of the same node
 * prepares it again): a reader sees one whole version or the other, never a file cut short; two rewrites of one file
 * at once both land; a hard link replaced keeps its other name's content.
 */
import { expect } from 'chai';
import { link, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { replaceFile } from '../../../reference/node-fs/replace-file.js';

describe('reference/node-fs/replace-file: files rewritten under a reader', () => {
  let dir: string;
  beforeEach(async () => void (dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-replace-'))));
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('a reader reading all along sees only whole versions', async function () {
    this.timeout(30_000);
    const file = path.join(dir, 'run/ocp-e2e/rpm-ostree-status.json');
    // large enough that a write takes more than one system call, as a truncating rewrite would show
    const versions = ['a', 'b'].map((c) => c.repeat(4 << 20));
    await replaceFile(file, versions[0]!);
    let writing = true;
    const seen = new Set<number>();
    const reader = (async () => {
      let reads = 0;
      while (writing || reads < 20) {
        const text = await readFile(file, 'utf8');
        seen.add(text.length);
        expect(versions, `read ${reads}: ${text.length} bytes, starting ${JSON.stringify(text.slice(0, 8))}`).to.include(text);
        reads++;
      }
      return reads;
    })();
    for (let i = 0; i < 60; i++) await replaceFile(file, versions[i % 2]!);
    writing = false;
    expect(await reader).to.be.at.least(20);
    expect([...seen]).to.deep.equal([4 << 20]);
    expect(await readdir(path.dirname(file))).to.deep.equal(['rpm-ostree-status.json']);
  });

  it('two rewrites of one file at once both land, the last one named wins, and leave no temporary file', async () => {
    const file = path.join(dir, 'cmdline');
    await Promise.all(Array.from({ length: 8 }, (_, i) => replaceFile(file, `version ${i}\n`)));
    expect(await readFile(file, 'utf8')).to.match(/^version [0-7]\n$/);
    expect(await readdir(dir)).to.deep.equal(['cmdline']);
  });

  it('a hard link it replaces keeps its other name\'s content', async () => {
    const image = path.join(dir, 'image-file'), node = path.join(dir, 'node-file');
    await writeFile(image, 'the image\'s\n');
    await link(image, node);
    await replaceFile(node, 'the node\'s\n', 0o600);
    expect(await readFile(image, 'utf8')).to.equal('the image\'s\n');
    expect(await readFile(node, 'utf8')).to.equal('the node\'s\n');
  });
});
