import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { checkLayeredContainerfile, ContainerfileError, DEFAULT_CONTAINERFILE, describeContainerfile, parseBuildArgs } from '../../helpers/containerfile.js';
import { declaredChecks } from '../../helpers/layered-checks.js';

const describe_ = (text: string, args: Record<string, string> = {}) => describeContainerfile(text, 'Cf', args);
const check = (text: string, args: Record<string, string> = {}) => checkLayeredContainerfile(describe_(text, args), args);

describe('helpers/containerfile: what a layered-image Containerfile declares, read without building it', () => {
  it('the suite\'s own Containerfile: FROM ${BASE_IMAGE} after the extensions stage, and a package, a file with its mode and a unit to check', () => {
    const d = describeContainerfile(readFileSync(DEFAULT_CONTAINERFILE, 'utf8'), DEFAULT_CONTAINERFILE);
    expect(() => checkLayeredContainerfile(d, {})).to.not.throw();
    expect([...d.declaredArgs]).to.have.members(['BASE_IMAGE', 'EXTENSIONS_IMAGE']);
    expect(declaredChecks(d.labels, 'Cf')).to.deep.equal({
      packages: ['usbguard'],
      files: [{ path: '/etc/ocp-e2e/layered-image.conf', mode: 0o640 }],
      units: ['ocp-e2e-layered.service'],
    });
  });

  it('the image is the last stage, followed through the stages it is FROM: that root must be ${BASE_IMAGE}', () => {
    const stages = 'ARG BASE_IMAGE\nFROM ${BASE_IMAGE} AS base\nLABEL a=1\nFROM busybox AS tools\nLABEL t=1\nFROM base\nLABEL b=2\n';
    expect(describe_(stages).base).to.deep.equal({ from: '${BASE_IMAGE}', line: 2 });
    expect(describe_(stages).labels).to.deep.equal({ a: '1', b: '2' }); // not the tools stage's
    expect(() => check(stages)).to.not.throw();
    expect(() => check('ARG BASE_IMAGE\nFROM $BASE_IMAGE\n')).to.not.throw();
    expect(() => check('ARG BASE_IMAGE\nFROM ${BASE_IMAGE} AS b\nFROM quay.io/x/rhcos:4.12\n')).to.throw(ContainerfileError, 'Cf: the image must be built FROM ${BASE_IMAGE}, the release\'s base OS image that the suite passes; its last stage starts (line 3) FROM quay.io/x/rhcos:4.12');
    expect(() => check('FROM ${BASE_IMAGE}\n')).to.throw(ContainerfileError, 'declare ARG BASE_IMAGE before the first FROM');
    expect(() => check('# only a comment\n')).to.throw(ContainerfileError, 'Cf: it has no FROM instruction');
  });

  it('build arguments: each must be an ARG of the file (or a proxy argument every builder knows); the suite\'s own are refused', () => {
    const text = 'ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\nARG MIRROR=http://m PACKAGES\n';
    expect(() => check(text, { MIRROR: 'http://mine', PACKAGES: 'tmux', HTTPS_PROXY: 'http://p:3128' })).to.not.throw();
    expect(() => check(text, { MIROR: 'x' })).to.throw(ContainerfileError, '--build-arg MIROR: Cf declares no ARG MIROR (it declares MIRROR, PACKAGES)');
    expect(() => check(text, { EXTENSIONS_IMAGE: 'x' })).to.throw(ContainerfileError, '--build-arg EXTENSIONS_IMAGE: the suite sets EXTENSIONS_IMAGE to the release\'s image itself; leave it out');
    // BASE_IMAGE may name a mirror of the base (a disconnected bastion's); the build compares its digest with the release's
    expect(() => check(text, { BASE_IMAGE: 'mirror.local:5000/art@sha256:' + 'a'.repeat(64) })).to.not.throw();
    expect(() => check(text, { BASE_IMAGE: 'Mirror/X' })).to.throw(ContainerfileError, /^--build-arg BASE_IMAGE=Mirror\/X: not an image pullspec \(.*\); give the release's base OS image or a mirror of it$/);
    expect(parseBuildArgs(['A=1', 'B=x=y', 'C='])).to.deep.equal({ A: '1', B: 'x=y', C: '' });
    expect(() => parseBuildArgs(['A'])).to.throw(ContainerfileError, '--build-arg A: give NAME=VALUE');
    expect(() => parseBuildArgs(['1A=x'])).to.throw(ContainerfileError, 'give NAME=VALUE');
    expect(() => parseBuildArgs(['A=1', 'A=2'])).to.throw(ContainerfileError, '--build-arg A is given twice');
  });

  it('labels: quoted values, continuations, comments and heredocs read as the builder reads them; ARGs expand them', () => {
    const text = [
      'ARG BASE_IMAGE',
      'ARG PKG=global',
      'FROM ${BASE_IMAGE}',
      'ARG PKG',
      'ARG UNIT=x.service',
      'RUN <<EOF',
      'LABEL not=me',
      'EOF',
      'LABEL ocp-e2e.io/check-packages="$PKG tmux" \\',
      '  # a comment inside the instruction',
      "  ocp-e2e.io/check-units='${UNIT}' other=${NOPE:-d}x",
      'LABEL legacy value with words',
    ].join('\n');
    const err = (() => { try { describe_(text); } catch (e) { return e as Error; } return undefined; })();
    expect(err?.message).to.equal('Cf: line 3\'s stage: LABEL other uses $NOPE, which the stage does not declare with ARG');
    const fixed = text.replace('${NOPE:-d}x', '${UNIT:+y}x');
    expect(describe_(fixed).labels).to.deep.equal({ 'ocp-e2e.io/check-packages': 'global tmux', 'ocp-e2e.io/check-units': 'x.service', other: 'yx', legacy: 'value with words' });
    expect(describe_(fixed, { PKG: 'given' }).labels['ocp-e2e.io/check-packages']).to.equal('given tmux');
  });

  it('check labels: names, paths and octal modes that can be probed, or one message naming the label', () => {
    const labels = (files: string, packages = 'a', units = 'u.service') => ({ 'ocp-e2e.io/check-packages': packages, 'ocp-e2e.io/check-files': files, 'ocp-e2e.io/check-units': units });
    expect(declaredChecks(labels('/etc/a:0600 /etc/b /etc/c:755'), 'Cf').files).to.deep.equal([{ path: '/etc/a', mode: 0o600 }, { path: '/etc/b' }, { path: '/etc/c', mode: 0o755 }]);
    expect(declaredChecks({}, 'Cf')).to.deep.equal({ packages: [], files: [], units: [] });
    expect(() => declaredChecks(labels('/etc/a:rw'), 'Cf')).to.throw('Cf: LABEL ocp-e2e.io/check-files: "/etc/a:rw" is not PATH or PATH:MODE with an octal mode such as 0644');
    expect(() => declaredChecks(labels('etc/a'), 'Cf')).to.throw('Cf: LABEL ocp-e2e.io/check-files: not a file path: "etc/a"');
    expect(() => declaredChecks(labels('/etc/a', 'zsh;reboot'), 'Cf')).to.throw('Cf: LABEL ocp-e2e.io/check-packages: not a package name');
    expect(() => declaredChecks(labels('/etc/a', 'a', 'nounit'), 'Cf')).to.throw('Cf: LABEL ocp-e2e.io/check-units: not a systemd unit name: "nounit"');
  });
});
