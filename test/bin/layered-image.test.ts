/**
 * The layered image on the reference, end to end through `ocp-e2e run --grep 54183`: the default image (a package of
 * the release's extensions image, a file, an enabled unit; nothing from outside the release) is built, rolled out and
 * checked on every overridden node; a user's --containerfile with --build-arg is built and judged by what its labels
 * declare; each check fails on an image that does not hold what it declares; bad input is refused before any cluster.
 */
import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastLine, ocpE2e, ROOT } from '../support/cli.js';

const OWN = join(ROOT, 'test', 'bin', 'fixtures', 'layered-own', 'Containerfile');
const NOT_BASE = join(ROOT, 'test', 'bin', 'fixtures', 'layered-not-base', 'Containerfile');
/** 4.12-ga's reference cluster: 3 masters and 2 workers, every one overridden by spec 1. */
const NODES = 5;

interface Step {
  name: string;
  status?: string;
  steps?: Step[];
  attachments?: Array<{ name: string; source: string }>;
}

/** Every step of the run's Allure results, depth first, and the text of every attachment by name. */
function report(reportsDir: string): { steps: Step[]; attachment(name: string): string[] } {
  const dir = join(reportsDir, 'allure-results');
  const steps: Step[] = [];
  const attachments: Array<{ name: string; source: string }> = [];
  const walk = (list: Step[] = []): void => {
    for (const s of list) {
      steps.push(s);
      attachments.push(...(s.attachments ?? []));
      walk(s.steps);
    }
  };
  for (const f of readdirSync(dir).filter((n) => n.endsWith('-result.json'))) walk((JSON.parse(readFileSync(join(dir, f), 'utf8')) as Step).steps);
  return { steps, attachment: (name) => attachments.filter((a) => a.name === name).map((a) => readFileSync(join(dir, a.source), 'utf8')) };
}

const nodeSteps = (steps: Step[]) => steps.filter((s) => /^node \S+ is on rendered-/.test(s.name));
const run = (args: string[]) => ocpE2e(['run', '--grep', '54183', ...args], { timeoutMs: 280_000 });

describe('the layered image: built from the release, checked on every node, or brought by QE', function () {
  this.timeout(300_000);

  it('the default image: usbguard from the release\'s extensions image, a 0640 file and an enabled unit, checked on every overridden node', async () => {
    const r = await run([]);
    expect(r.exitCode, r.output).to.equal(0);
    const { steps, attachment } = report(r.reportsDir);
    const build = attachment('build output').join('\n');
    // the package comes from the copy of the extensions image's repository (a file:// baseurl): nothing remote; the
    // steps' text is there whether the engine ran them or took them from its cache
    expect(build).to.match(/Step 3\/\d+ : FROM \$\{EXTENSIONS_IMAGE\} AS extensions/);
    expect(build).to.match(/Step \d+\/\d+ : COPY --from=extensions \/usr\/share\/rpm-ostree\/extensions\/ \/var\/tmp\/ocp-e2e-extensions\//);
    expect(build).to.match(/Step \d+\/\d+ : RUN .*baseurl=file:\/\/\/var\/tmp\/ocp-e2e-extensions\/.* rpm-ostree install usbguard /);
    const layered = attachment('layered image').join('\n');
    expect(layered).to.match(/extensionsImage: 127\.0\.0\.1:\d+\/openshift-release-dev\/ocp-v4\.0-art-dev@sha256:[0-9a-f]{64}/);
    expect(layered).to.include('path: /etc/ocp-e2e/layered-image.conf').and.include('mode: 416').and.include('layered-by=ocp-e2e');
    const checked = nodeSteps(steps);
    expect(checked.map((s) => s.status)).to.deep.equal(Array(NODES).fill('passed'));
    for (const s of checked) expect(s.name).to.match(/ with usbguard; file \/etc\/ocp-e2e\/layered-image\.conf; ocp-e2e-layered\.service enabled$/);
    // what each node answered: the probes' own sections
    const asked = steps.filter((s) => / asked: /.test(s.name)).flatMap((s) => s.attachments ?? []);
    expect(asked).to.have.length(NODES);
  });

  it('--containerfile with --build-arg: QE\'s image (their mirror, their package, their file and unit) is built and judged by its labels', async () => {
    // a greeting of this run only: the RUN step that installs from the mirror has a cache key no earlier build made
    // (the engine keeps the steps of earlier runs, also across CI runs on one machine), so its output is this run's
    const greeting = `hi-qe-${process.pid}-${Date.now()}`;
    const r = await run(['--containerfile', OWN, '--build-arg', `GREETING=${greeting}`, '--build-arg', 'REPO_URL=http://mirror.qe.example/rhel8/']);
    expect(r.exitCode, r.output).to.equal(0);
    const { steps, attachment } = report(r.reportsDir);
    expect(attachment('build output').join('\n')).to.include('Installing: tmux-2.7-1.el8.x86_64 (mirror)');
    const layered = attachment('layered image').join('\n');
    expect(layered).to.include(`greeting=${greeting}`).and.not.include('extensionsImage'); // it takes no EXTENSIONS_IMAGE
    const checked = nodeSteps(steps);
    expect(checked.map((s) => s.status)).to.deep.equal(Array(NODES).fill('passed'));
    for (const s of checked) expect(s.name).to.match(/ with tmux; file \/etc\/e2e-own\.conf; e2e-own\.service enabled$/);
  });

  describe('each check fails on an image that does not hold what it declares', () => {
    it('a declared file the image does not write: refused after the push, before any pool rolls out', async () => {
      const r = await run(['--containerfile', OWN, '--build-arg', 'CHECK_FILES=/etc/never-written.conf']);
      expect(r.exitCode, r.output).to.equal(1);
      expect(r.output).to.match(/\[phase prepare\][\s\S]*the layered image \S+layered-os@sha256:[0-9a-f]{64} has no file \/etc\/never-written\.conf, yet its Containerfile declares it \(LABEL ocp-e2e\.io\/check-files\)/);
      expect(r.output).to.not.include('create MachineConfigs');
    });

    it('a declared file of another mode: refused the same way', async () => {
      const r = await run(['--containerfile', OWN, '--build-arg', 'CHECK_FILES=/etc/e2e-own.conf:0644']);
      expect(r.exitCode, r.output).to.equal(1);
      expect(r.output).to.include('holds /etc/e2e-own.conf with mode 0600, yet its Containerfile declares it (LABEL ocp-e2e.io/check-files) with mode 0644');
    });

    it('a declared package the image does not install: every node\'s rpm -q says so', async () => {
      const r = await run(['--containerfile', OWN, '--build-arg', 'CHECK_PACKAGES=htop']);
      expect(r.exitCode, r.output).to.equal(1);
      expect(r.output).to.match(/\[phase check\][\s\S]*node \S+: package htop is not installed in the booted image \S+layered-os@sha256:[0-9a-f]{64}; custom image of tc-54183-new-os-image-upgrade-(master|worker)/);
    });

    it('a declared unit the image carries but does not enable: systemctl is-enabled says disabled', async () => {
      const r = await run(['--containerfile', OWN, '--build-arg', 'CHECK_UNITS=e2e-off.service']);
      expect(r.exitCode, r.output).to.equal(1);
      expect(r.output).to.match(/\[phase check\][\s\S]*node \S+: systemctl is-enabled e2e-off\.service says "disabled", expected it enabled/);
    });
  });

  it('bad input is refused before any cluster time: exit 2, one message each', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-containerfile-'));
    writeFileSync(join(dir, 'file'), 'not a folder');
    const cases: Array<[string[], string]> = [
      [['--containerfile', join(dir, 'nope')], `ocp-e2e run: --containerfile ${join(dir, 'nope')}: no such file`],
      [['--containerfile', join(dir, 'file', 'Containerfile')], `ocp-e2e run: --containerfile ${join(dir, 'file', 'Containerfile')}: cannot be read (ENOTDIR)`],
      [['--containerfile', dir], `ocp-e2e run: --containerfile ${dir}: is a folder; give the Containerfile itself (its folder is the build context)`],
      [['--containerfile', NOT_BASE], `ocp-e2e run: ${NOT_BASE}: the image must be built FROM \${BASE_IMAGE}, the release's base OS image that the suite passes; its last stage starts (line 3) FROM quay.io/openshift-release-dev/ocp-v4.0-art-dev:rhcos-4.12`],
      [['--containerfile', OWN, '--build-arg', 'GRETING=x'], `ocp-e2e run: --build-arg GRETING: ${OWN} declares no ARG GRETING (it declares REPO_URL, PACKAGES, GREETING, CHECK_PACKAGES, CHECK_FILES, CHECK_UNITS)`],
      [['--build-arg', 'PACKAGES=zsh'], `ocp-e2e run: --build-arg PACKAGES: ${join(ROOT, 'images', 'layered-os', 'Containerfile')} declares no ARG PACKAGES (it declares none besides the suite's)`],
      [['--containerfile', OWN, '--build-arg', 'EXTENSIONS_IMAGE=quay.io/x'], 'ocp-e2e run: --build-arg EXTENSIONS_IMAGE: the suite sets EXTENSIONS_IMAGE to the release\'s image itself; leave it out'],
      [['--containerfile', OWN, '--build-arg', 'BASE_IMAGE=Quay.io/X'], 'ocp-e2e run: --build-arg BASE_IMAGE=Quay.io/X: not an image pullspec (Invalid image reference "Quay.io/X": repository "X" must be lower-case letters, digits and . _ - /); give the release\'s base OS image or a mirror of it'],
      [['--containerfile', OWN, '--build-arg', 'CHECK_FILES=/etc/x:rw'], `ocp-e2e run: ${OWN}: LABEL ocp-e2e.io/check-files: "/etc/x:rw" is not PATH or PATH:MODE with an octal mode such as 0644`],
    ];
    for (const [args, message] of cases) {
      const r = await ocpE2e(['run', '--grep', '54183', ...args], { timeoutMs: 60_000 });
      expect([r.exitCode, r.output.trim()], args.join(' ')).to.deep.equal([2, message]);
    }
  });
});
