/**
 * lib/files/unreadable.ts: the message for a kubeconfig or pull secret this process may not read. A real EACCES needs
 * a uid other than the file's (the image test gets one: the README's line without --user); here node's error is made
 * by hand, on a real file, so owner and mode are read as they would be.
 */
import { expect } from 'chai';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unreadableReason } from '../../../lib/files/unreadable.js';

describe('lib/files: why a file cannot be read', () => {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-unreadable-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const nodeError = (code: string, path: string) => Object.assign(new Error(`${code}: permission denied, open '${path}'`), { code });

  it('on EACCES names the mode, the owner, this process and the way out (the container runs as the file\'s owner)', () => {
    const file = join(dir, 'kubeconfig');
    writeFileSync(file, 'x');
    chmodSync(file, 0o600);
    const reason = unreadableReason(file, nodeError('EACCES', file));
    expect(reason).to.match(/^EACCES: permission denied, open '\S+kubeconfig' \(the file is mode 0600, owned by uid \d+ gid \d+; this process runs as uid \d+ gid \d+\)\. /);
    expect(reason).to.include('docker run --user "$(id -u):$(id -g)"');
    expect(reason).to.include('--userns=keep-id');
  });

  it('says what it can when the file cannot even be looked at, and leaves other errors as node said them', () => {
    const gone = join(dir, 'closed', 'kubeconfig');
    expect(unreadableReason(gone, nodeError('EACCES', gone))).to.match(/^EACCES: [^(]*\(this process runs as uid \d+ gid \d+\)\. Run as the file's owner/);
    expect(unreadableReason(dir, Object.assign(new Error('EISDIR: illegal operation on a directory, read'), { code: 'EISDIR' }))).to.equal('EISDIR: illegal operation on a directory, read');
  });
});
