/**
 * The busybox base image's tag (lib/oci/base-image.ts) is kept between starts, in the process and in a file, and
 * follows its inputs: a busybox that changes gets a new tag at once, and a kept file from another layout is ignored.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { busyboxBaseTag } from '../../../lib/oci/base-image.js';

describe('lib/oci/base-image: the base image tag, kept while its inputs stay', () => {
  let dir: string;
  let busybox: string;

  before(function () {
    if (!existsSync('/bin/busybox')) throw new Error('/bin/busybox is missing (apt-get install busybox-static; scripts/ensure-env.sh --busybox)');
    dir = mkdtempSync(path.join(tmpdir(), 'ocp-e2e-bb-tag-'));
    busybox = path.join(dir, 'busybox');
    copyFileSync('/bin/busybox', busybox);
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    for (const f of readdirSync(tmpdir()).filter((f) => f.startsWith('ocp-e2e-busybox-base-'))) {
      // only the kept file of this test's own busybox copy: the real one's stays for the next start
      const kept = path.join(tmpdir(), f);
      try {
        if (JSON.parse(readFileSync(kept, 'utf8')).inputs.busybox === busybox) rmSync(kept);
      } catch {
        // another process's partial file, or not ours
      }
    }
  });

  it('a second process gets the tag from the kept file, the same as computed', () => {
    const first = busyboxBaseTag({ busybox });
    expect(first.tag).to.match(/^localhost\/ocp-e2e\/busybox-base:[0-9a-f]{16}$/);
    const script = `import { busyboxBaseTag } from ${JSON.stringify(path.resolve('lib/oci/base-image.ts'))}; console.log(JSON.stringify(busyboxBaseTag({ busybox: ${JSON.stringify(busybox)} })));`;
    const other = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }));
    expect(other).to.deep.equal(first);
  });

  it('a changed busybox (same path) gets a new tag, in this process and the next', () => {
    const before = busyboxBaseTag({ busybox }).tag;
    appendFileSync(busybox, '\n');
    utimesSync(busybox, new Date(), new Date(Date.now() + 5_000));
    const after = busyboxBaseTag({ busybox }).tag;
    expect(after).to.not.equal(before);
    const script = `import { busyboxBaseTag } from ${JSON.stringify(path.resolve('lib/oci/base-image.ts'))}; console.log(busyboxBaseTag({ busybox: ${JSON.stringify(busybox)} }).tag);`;
    expect(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }).trim()).to.equal(after);
  });
});
