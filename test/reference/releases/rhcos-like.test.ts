// The commands of the RHCOS-like OS image behave like the real ones for what the report and the suite use.
import { expect } from 'chai';
import { connectEngine, type Engine } from '../../../lib/oci/engine.js';
import { pullImage } from '../../../lib/oci/pull.js';
import { removeImage } from '../../../lib/oci/build.js';
import { ensureReleases, type ReleaseInfo } from '../../../reference/releases/index.js';
import { runInImage, startTestRegistry, type TestRegistry } from '../../lib/oci/support/fixtures.js';
import { getProfile } from '../../../reference/profiles/index.js';
import { baseOsImage, extensionsImage } from '../../../reference/releases/release-info.js';

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
    await pullImage(engine, extensionsImage(release)!);
  });
  after(async () => {
    if (release) for (const image of [baseOsImage(release), extensionsImage(release)!]) await removeImage(engine, image);
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

  it('the extensions image is an rpm-md repository: repodata/repomd.xml names primary.xml, which lists usbguard and its folder', async () => {
    const r = await runInImage(engine, extensionsImage(release)!, ['/bin/sh', '-c', 'cd /usr/share/rpm-ostree/extensions && cat repodata/repomd.xml && cat repodata/primary.xml && ls usbguard/files/usr/lib/systemd/system']);
    expect(r.output).to.match(/<data type="primary">\n\s*<checksum type="sha256">[0-9a-f]{64}<\/checksum>\n\s*<location href="repodata\/primary.xml"\/>/);
    expect(r.output).to.include('<name>usbguard</name>\n  <arch>x86_64</arch>\n  <version epoch="0" ver="1.0.0" rel="8.el8"/>\n  <location href="usbguard/"/>');
    expect(r.output).to.include('usbguard.service');
    // the release's extensions only: not the offline package set the base serves for remote repositories
    expect(r.output).to.not.include('<name>zsh</name>');
  });

  it('rpm-ostree install reads a local repository (baseurl file:// or a path) through its metadata, as from a copied extensions repository', async () => {
    // what a layered Containerfile does with `COPY --from=extensions`: here the repository is built in place by createrepo
    const local = (baseurl: string) =>
      `mkdir -p /var/tmp/ext/usbguard/files/usr/bin && printf 'usbguard\\t1.0.0\\t8.el8\\tx86_64\\n' > /var/tmp/ext/usbguard/package && ` +
      `echo stub > /var/tmp/ext/usbguard/files/usr/bin/usbguard && /usr/libexec/ocp-e2e/createrepo /var/tmp/ext >/dev/null && ` +
      `printf '[ext]\\nbaseurl=${baseurl}\\nenabled=1\\ngpgcheck=0\\n' > /etc/yum.repos.d/ext.repo`;
    for (const baseurl of ['file:///var/tmp/ext/', '/var/tmp/ext']) {
      const r = await sh(`${local(baseurl)} && rpm-ostree install usbguard && rpm -q usbguard && cat /usr/bin/usbguard; rpm-ostree install zsh; echo "zsh=$?"`);
      expect(r.output).to.include('Installing: usbguard-1.0.0-8.el8.x86_64 (ext)\nusbguard-1.0.0-8.el8.x86_64\nstub\n');
      // a local repository is its metadata, not the offline package set
      expect(r.output).to.include('error: Packages not found: zsh').and.to.include('zsh=1');
    }
    const noMetadata = await sh(`${local('file:///var/tmp/ext/')} && rm -r /var/tmp/ext/repodata && rpm-ostree install usbguard; echo "exit=$?"`);
    expect(noMetadata.output).to.include("error: Updating rpm-md repo 'ext': cannot update repo 'ext': Cannot download repomd.xml").and.to.include('exit=1');
  });

  it('systemctl enable links a unit into the targets of its [Install] section; is-enabled reads the links back', async () => {
    const unit = (name: string, install: string) => `printf '[Unit]\\nDescription=x\\n${install}' > /etc/systemd/system/${name}`;
    const r = await sh(
      `mkdir -p /etc/systemd/system && ${unit('a.service', '[Install]\\nWantedBy=multi-user.target\\n')} && ${unit('s.service', '')} && ` +
        'systemctl is-enabled a.service; systemctl enable a.service && readlink /etc/systemd/system/multi-user.target.wants/a.service && ' +
        'systemctl is-enabled a.service s.service; systemctl enable nope.service; echo "nope=$?"; systemctl disable a.service && systemctl is-enabled a.service; echo "off=$?"',
    );
    expect(r.output).to.include('disabled\nCreated symlink /etc/systemd/system/multi-user.target.wants/a.service → /etc/systemd/system/a.service.\n/etc/systemd/system/a.service\nenabled\nstatic\n');
    expect(r.output).to.include('Failed to enable unit: Unit file nope.service does not exist.\nnope=1');
    expect(r.output).to.include('disabled\noff=1');
  });

  it('rpm-ostree install of unknown packages fails like the real one', async () => {
    const r = await sh(`${REPO} && rpm-ostree install zsh nosuchpkg otherpkg; echo "exit=$?"`);
    expect(r.output).to.include('error: Packages not found: nosuchpkg, otherpkg\n').and.to.include('exit=1');
    expect((await sh(`${REPO}; rpm-ostree install zsh nosuchpkg; rpm -q zsh`)).output).to.include('package zsh is not installed');
  });
});
