// The commands of the RHCOS-like OS image behave like the real ones for what the report and the suite use.
import { expect } from 'chai';
import { connectEngine, type Engine } from '../../../lib/oci/engine.js';
import { pullImage } from '../../../lib/oci/pull.js';
import { removeImage } from '../../../lib/oci/build.js';
import { ensureReleases, type ReleaseInfo } from '../../../reference/releases/index.js';
import { runInImage, startTestRegistry, type TestRegistry } from '../../lib/oci/support/fixtures.js';
import { getProfile } from '../../../reference/profiles/index.js';
import { baseOsImage } from '../../../reference/releases/release-info.js';

const REPO = `printf '[baseos]\\nname=Base\\nbaseurl=http://mirror.invalid/\\nenabled=1\\n\\n[off]\\nname=Off\\nbaseurl=http://x/\\nenabled=0\\n' > /etc/yum.repos.d/test.repo`;

describe('images: the RHCOS-like OS image', function () {
  this.timeout(60_000);
  let engine: Engine;
  let registry: TestRegistry;
  let release: ReleaseInfo;
  const sh = (script: string) => runInImage(engine, baseOsImage(release), ['/bin/sh', '-c', script]);

  before(async () => {
    engine = await connectEngine();
    registry = await startTestRegistry();
    release = (await ensureReleases({ releases: getProfile(undefined).releases, engine, registry })).current;
    await pullImage(engine, baseOsImage(release));
  });
  after(async () => {
    if (release) await removeImage(engine, baseOsImage(release));
    await registry?.dispose();
  });

  it('names its release in /etc/os-release', async () => {
    const r = await sh('. /etc/os-release && echo "$NAME|$VERSION|$OPENSHIFT_VERSION|$ID"');
    expect(r.output.trim()).to.equal(`Red Hat Enterprise Linux CoreOS|${release.version}|${release.version}|rhcos`);
  });

  it('rpm -q / -qa answer from the package database with rpm\'s exit codes', async () => {
    const one = await sh('rpm -q kernel zsh tmux; echo "exit=$?"');
    expect(one.output).to.equal('kernel-4.18.0-372.26.1.el8_6.x86_64\npackage zsh is not installed\npackage tmux is not installed\nexit=2\n');
    const all = await sh('rpm -qa | wc -l');
    expect(Number(all.output.trim())).to.equal(15);
  });

  it('rpm-ostree install needs an enabled repository, installs files, records the package, refuses duplicates', async () => {
    const noRepo = await sh('rpm-ostree install zsh; echo "exit=$?"');
    expect(noRepo.output).to.include('error: Packages not found: zsh').and.to.include('exit=1');
    const r = await sh(
      `${REPO} && rpm-ostree install zsh tmux && rpm-ostree cleanup -m && ostree container commit && rpm -q zsh tmux && zsh -c 'echo from-zsh' && ` +
        'rpm-ostree install zsh; echo "dup=$?"; rpm-ostree install --idempotent zsh; echo "idem=$?"; rpm-ostree status --json',
    );
    expect(r.output).to.include('Enabled rpm-md repositories: baseos\n');
    expect(r.output).to.include('Installing 2 packages:\n  zsh-5.5.1-10.el8.x86_64 (baseos)\n  tmux-2.7-1.el8.x86_64 (baseos)\n');
    expect(r.output).to.include('zsh-5.5.1-10.el8.x86_64\ntmux-2.7-1.el8.x86_64\nfrom-zsh\n');
    expect(r.output).to.include('error: "zsh" is already provided by: zsh-5.5.1-10.el8.x86_64');
    expect(r.output).to.include('dup=1').and.to.include('idem=0');
    const status = JSON.parse(r.output.slice(r.output.indexOf('{"deployments"')));
    expect(status.deployments[0]).to.deep.include({ booted: true, 'requested-packages': ['zsh', 'tmux'] });
  });

  it('rpm-ostree install of unknown packages fails like the real one', async () => {
    const r = await sh(`${REPO} && rpm-ostree install zsh nosuchpkg otherpkg; echo "exit=$?"`);
    expect(r.output).to.include('error: Packages not found: nosuchpkg, otherpkg\n').and.to.include('exit=1');
    expect((await sh(`${REPO}; rpm-ostree install zsh nosuchpkg; rpm -q zsh`)).output).to.include('package zsh is not installed');
  });
});
