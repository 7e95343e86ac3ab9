/**
 * The suite on a disconnected reference cluster (`run --disconnected`, issue 43 items 1 and 4): the payloads name
 * quay.io's pullspecs, reached only through the cluster's mirror sets, and the spec processes reach no registry off
 * the machine. Spec 1 passes reading its release, building FROM its base OS image and upgrading through the mirrors
 * (4.12's ImageContentSourcePolicy; on 4.18-to-4.19, --to-image given as quay.io's release tag through the
 * ImageTagMirrorSet); a --to-image no mirror serves, and a malformed --idms-file, are refused before any spec runs.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastLine, ocpE2e } from '../support/cli.js';

describe('ocp-e2e run --disconnected', function () {
  this.timeout(300_000);

  it('spec 1 passes on 4.12: its release is quay.io\'s by digest, read and built from through the ImageContentSourcePolicy', async () => {
    const r = await ocpE2e(['run', '--disconnected', '--grep', '54183'], { timeoutMs: 280_000 });
    expect(r.exitCode, r.output.slice(-4000)).to.equal(0);
    expect(lastLine(r.output)).to.equal('1 passed, 0 failed, 0 skipped');
    expect(r.output).to.include('profile 4.12-ga, disconnected');
    // the cluster's release is quay.io's by digest; only the mirror could serve it, the run reaches nothing else
    expect(r.output).to.match(/upgrade to quay\.io\/openshift-release-dev\/ocp-release@sha256:[0-9a-f]{64} requested/);
  });

  it('4.18 -> 4.19 with --to-image quay.io/openshift-release-dev/ocp-release:4.19.0-x86_64: the tag is read and upgraded to through the ImageTagMirrorSet', async () => {
    const r = await ocpE2e(['run', '--disconnected', '--profile', '4.18-to-4.19', '--grep', '54183', '--to-image', 'quay.io/openshift-release-dev/ocp-release:4.19.0-x86_64'], { timeoutMs: 280_000 });
    expect(r.exitCode, r.output.slice(-4000)).to.equal(0);
    expect(lastLine(r.output)).to.equal('1 passed, 0 failed, 0 skipped');
    expect(r.output).to.include('upgrade to quay.io/openshift-release-dev/ocp-release:4.19.0-x86_64 requested');
  });

  it('a --to-image no mirror serves is refused before any spec runs: unreachable quay.io, with the mirror sets tried', async () => {
    const unmirrored = await ocpE2e(['run', '--disconnected', '--one-cluster', '--grep', '54183', '--to-image', 'quay.io/someone/release:4.13.0'], { timeoutMs: 200_000 });
    expect(unmirrored.exitCode).to.equal(2);
    expect(unmirrored.output).to.include('ocp-e2e run: --to-image quay.io/someone/release:4.13.0: cannot reach quay.io: Registry quay.io is unreachable: dial tcp: lookup quay.io: no such host');
    expect(unmirrored.output).to.include('(no mirror set (ImageContentSourcePolicy/release-0) maps quay.io/someone/release:4.13.0 for a pull by tag)');
    expect(unmirrored.output).to.not.include('▶ phase prepare');
    // 4.12's ICSP mirrors the release repository by digest only: its tag is refused, saying to give the digest
    const tag = 'quay.io/openshift-release-dev/ocp-release:4.12.0-0.nightly-2022-09-12-152748-x86_64';
    const byTag = await ocpE2e(['run', '--disconnected', '--one-cluster', '--grep', '54183', '--to-image', tag], { timeoutMs: 200_000 });
    expect(byTag.exitCode).to.equal(2);
    expect(byTag.output).to.include(`no mirror set (ImageContentSourcePolicy/release-0) maps ${tag} for a pull by tag; they mirror its repository for pulls by digest only: give the release by digest`);
    expect(byTag.output).to.not.include('▶ phase prepare');
  });

  it('a malformed --idms-file or --icsp-file is exit 2 naming the file, the object and the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-idms-'));
    const bad = join(dir, 'idms.yaml');
    writeFileSync(bad, 'apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: broken\nspec:\n  imageDigestMirrors:\n  - source: quay.io/openshift-release-dev/ocp-release\n    mirrors: mirror.local/ocp\n');
    const r = await ocpE2e(['run', '--grep', '54183', '--idms-file', bad], { timeoutMs: 60_000 });
    expect([r.exitCode, r.output.trim()]).to.deep.equal([2, `ocp-e2e run: --idms-file ${bad}: document 1: ImageDigestMirrorSet/broken spec.imageDigestMirrors[0].mirrors must be a list of registries or repositories (host[:port][/path]), got "mirror.local/ocp"`]);
    const icsp = await ocpE2e(['run', '--grep', '54183', '--icsp-file', bad], { timeoutMs: 60_000 });
    expect([icsp.exitCode, icsp.output.trim()]).to.deep.equal([2, `ocp-e2e run: --icsp-file ${bad}: document 1 is kind ImageDigestMirrorSet; expected ImageContentSourcePolicy`]);
    const missing = await ocpE2e(['run', '--grep', '54183', '--idms-file', join(dir, 'nope.yaml')], { timeoutMs: 60_000 });
    expect([missing.exitCode, missing.output.trim()]).to.deep.equal([2, `ocp-e2e run: --idms-file ${join(dir, 'nope.yaml')}: cannot be read (ENOENT)`]);
  });

  it('--disconnected applies to the reference only', async () => {
    const r = await ocpE2e(['run', '--target', 'cluster', '--disconnected'], { timeoutMs: 60_000 });
    expect([r.exitCode, r.output.trim()]).to.deep.equal([2, 'ocp-e2e run: --disconnected applies to --target reference only']);
  });
});
