// Acceptance of the layered-image path against the real engine and a real registry: build the report's Containerfile
// on the release's rhel-coreos-8 image, push it, get it back by digest; and every failure a person can meet.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { buildImage, removeImage } from '../../../lib/oci/build.js';
import { parseDockerConfig, RegistryCredentials } from '../../../lib/oci/credentials.js';
import { connectEngine, identifyEngine, type Engine } from '../../../lib/oci/engine.js';
import {
  BaseImageUnavailableError,
  BuildStepFailedError,
  ContainerfileSyntaxError,
  ImageBuildTimeoutError,
  ImagePushError,
  PushUnauthorizedError,
  RegistryUnreachableError,
} from '../../../lib/oci/errors.js';
import { pullImage } from '../../../lib/oci/pull.js';
import { pushImage } from '../../../lib/oci/push.js';
import { RegistryClient } from '../../../lib/oci/image-files.js';
import { getProfile } from '../../../reference/profiles/index.js';
import { baseOsImage, ensureReleases, type ReleaseInfo } from '../../../reference/releases/index.js';
import { closedPort, MARKER_PASSWORD, markerPullSecret, runInImage, startTestRegistry, type TestRegistry } from './support/fixtures.js';

const REPORT_REPO_FILE =
  '[baseos]\nname=CentOS-$releasever - Base\nbaseurl=http://mirror.centos.org/centos/$releasever-stream/BaseOS/$basearch/os/\ngpgcheck=0\nenabled=1\n\n' +
  '[appstream]\nname=CentOS-$releasever - AppStream\nbaseurl=http://mirror.centos.org/centos/$releasever-stream/AppStream/$basearch/os/\ngpgcheck=0\nenabled=1\n\n';
const LAYERED_OS_DIR = fileURLToPath(new URL('../../../images/layered-os/', import.meta.url));
// The report's own Containerfile (zsh from CentOS Stream): the reference's RHCOS-like base serves its repositories offline.
const REPORT_CONTAINERFILE = 'Containerfile.report';

describe('images: layered OS image build and push (real engine, real registry)', function () {
  this.timeout(120_000);
  let engine: Engine;
  let registry: TestRegistry;
  let release: ReleaseInfo;
  const runId = `t${randomBytes(4).toString('hex')}`;
  const localImages: string[] = [];
  const tagFor = (caseId: string, reg = registry.address) => `${reg}/ocp-e2e/layered:${runId}-${caseId}`;
  const labels = (caseId: string) => ({ 'quay.expires-after': '2h', 'ocp-e2e.io/case-id': caseId, 'ocp-e2e.io/run-id': runId });

  before(async () => {
    engine = await connectEngine();
    registry = await startTestRegistry();
    release = (await ensureReleases({ releases: getProfile(undefined).releases, engine, registry })).current;
  });

  after(async () => {
    for (const image of localImages.reverse()) await removeImage(engine, image, { force: true });
    await registry?.dispose();
  });

  it('returns the digest the registry serves for the tag, and a container of it answers `rpm -q zsh`', async () => {
    const tag = tagFor('54183');
    localImages.push(tag);
    const built = await buildImage(engine, {
      contextDir: LAYERED_OS_DIR,
      containerfile: REPORT_CONTAINERFILE,
      buildArgs: { BASE_IMAGE: baseOsImage(release) },
      labels: labels('54183'),
      tag,
      noCache: true, // the RUN step must really run here, not come from an earlier test's layer cache
    });
    expect(built.output.join('\n')).to.include('Installing: zsh-5.5.1-10.el8.x86_64');
    const pushed = await pushImage(engine, tag);
    expect(pushed.pullspec).to.equal(`${registry.address}/ocp-e2e/layered@${pushed.digest}`);

    const head = await fetch(`http://${registry.address}/v2/ocp-e2e/layered/manifests/${runId}-54183`, {
      method: 'HEAD',
      headers: { Accept: 'application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json' },
    });
    expect(head.headers.get('docker-content-digest')).to.equal(pushed.digest);

    // The repository file is byte for byte what the report's printf writes.
    const repoFile = await new RegistryClient().readFile(pushed.pullspec, '/etc/yum.repos.d/centos.repo');
    expect(repoFile?.toString()).to.equal(REPORT_REPO_FILE);

    const inspected = await engine.getImage(tag).inspect();
    expect(inspected.Config.Labels).to.include(labels('54183'));

    // Pull by digest, as a node does, and look inside.
    await removeImage(engine, tag);
    await pullImage(engine, pushed.pullspec);
    await pullImage(engine, baseOsImage(release));
    localImages.push(pushed.pullspec, baseOsImage(release));
    const layered = await runInImage(engine, pushed.pullspec, ['rpm', '-q', 'zsh']);
    expect(layered).to.deep.equal({ exitCode: 0, output: 'zsh-5.5.1-10.el8.x86_64\n' });
    const base = await runInImage(engine, baseOsImage(release), ['rpm', '-q', 'zsh']);
    expect(base).to.deep.equal({ exitCode: 1, output: 'package zsh is not installed\n' });
    const zsh = await runInImage(engine, pushed.pullspec, ['zsh', '--version']);
    expect(zsh.output).to.match(/^zsh 5\.5\.1/);
  });

  it('labels reach the image as given (quotes, $ and all); on dockerd as one LABEL step, the steps seeing the context as given', async () => {
    const given = { 'ocp-e2e.io/run-id': runId, 'ocp-e2e.io/quoted': 'a "quoted" $HOME \\ value', 'quay.expires-after': '2h' };
    const build = async (caseId: string, files: Record<string, string>) => {
      const tag = tagFor(caseId);
      localImages.push(tag);
      const built = await buildImage(engine, {
        files: { Containerfile: `FROM ${baseOsImage(release)}\nCOPY . /ctx/\nRUN ls -A /ctx | tr '\\n' ' '; echo\n`, ...files },
        labels: given,
        tag,
        noCache: true,
      });
      return { labels: (await engine.getImage(tag).inspect()).Config.Labels, output: built.output.join('\n') };
    };
    const podman = (await identifyEngine(engine)).kind === 'podman';
    const plain = await build('labels', { 'a.txt': 'a\n' });
    expect(plain.labels).to.include(given);
    // what COPY . saw: the files given and nothing the build added to carry the labels
    expect(plain.output).to.match(/^Containerfile a\.txt ?$/m);
    if (!podman) expect(plain.output.match(/^Step \d+\/\d+ : LABEL /gm), plain.output).to.have.length(1);
    const ignoring = await build('labels-ignore', { 'a.txt': 'a\n', 'b.txt': 'b\n', '.dockerignore': 'b.txt\n' });
    expect(ignoring.labels).to.include(given);
    // the context's own .dockerignore stays for the steps (podman applies it; dockerd leaves that to the client)
    expect(ignoring.output).to.match(podman ? /^\.dockerignore Containerfile a\.txt ?$/m : /^\.dockerignore Containerfile a\.txt b\.txt ?$/m);
  });

  it('a failing RUN (`rpm-ostree install nosuchpkg`) names the step and shows its output', async () => {
    const tag = tagFor('nosuchpkg');
    localImages.push(tag);
    const err = await buildImage(engine, {
      contextDir: LAYERED_OS_DIR,
      containerfile: REPORT_CONTAINERFILE,
      buildArgs: { BASE_IMAGE: baseOsImage(release), PACKAGES: 'nosuchpkg' },
      tag,
    }).catch((e) => e);
    expect(err).to.be.instanceOf(BuildStepFailedError);
    expect(err.exitCode).to.equal(1);
    expect(err.step).to.match(/^Step \d+\/\d+ : RUN printf .*rpm-ostree install \$PACKAGES/);
    expect(err.lastLines).to.include('error: Packages not found: nosuchpkg');
    expect(err.message).to.include('error: Packages not found: nosuchpkg');
  });

  it('a Containerfile syntax error is its own error', async () => {
    const err = await buildImage(engine, {
      files: { Containerfile: `FROM ${baseOsImage(release)}\nRUNN echo hi\n` },
      tag: tagFor('syntax'),
    }).catch((e) => e);
    expect(err).to.be.instanceOf(ContainerfileSyntaxError);
    const podman = (await identifyEngine(engine)).kind === 'podman';
    expect(err.message.split('\n')[0]).to.equal(podman
      ? 'The Containerfile has a syntax error: unknown instruction: RUNN (podman does not say on which line)'
      : 'The Containerfile has a syntax error: dockerfile parse error line 2: unknown instruction: RUNN');
  });

  it('a missing base image is its own error, naming the reference', async () => {
    const missing = `${registry.address}/ocp-e2e/does-not-exist@sha256:${'0'.repeat(63)}1`;
    const err = await buildImage(engine, {
      contextDir: LAYERED_OS_DIR,
      containerfile: REPORT_CONTAINERFILE,
      buildArgs: { BASE_IMAGE: missing },
      tag: tagFor('nobase'),
    }).catch((e) => e);
    expect(err).to.be.instanceOf(BaseImageUnavailableError);
    expect(err.unauthorized).to.equal(false);
    expect(err.message).to.include('ocp-e2e/does-not-exist');
  });

  it('a base image on a registry that is not running is a base image error saying so', async () => {
    const port = await closedPort();
    const err = await buildImage(engine, {
      contextDir: LAYERED_OS_DIR,
      containerfile: REPORT_CONTAINERFILE,
      buildArgs: { BASE_IMAGE: `127.0.0.1:${port}/ocp/rhcos:4.12` },
      tag: tagFor('base-unreachable'),
    }).catch((e) => e);
    expect(err).to.be.instanceOf(BaseImageUnavailableError);
    expect(err.baseImage).to.equal(`127.0.0.1:${port}/ocp/rhcos:4.12`);
    expect(err.message).to.include('connection refused');
  });

  it('pushing a tag the engine does not have says to build it first', async () => {
    const err = await pushImage(engine, tagFor('never-built')).catch((e) => e);
    expect(err).to.be.instanceOf(ImagePushError);
    expect(err.message).to.include('build or tag it first');
  });

  it('a build that runs too long is cancelled with a timeout error', async () => {
    const started = Date.now();
    const err = await buildImage(engine, {
      files: { Containerfile: `FROM ${baseOsImage(release)}\nRUN echo started && sleep 30\n` },
      tag: tagFor('slow'),
      timeoutMs: 2500,
      noCache: true,
    }).catch((e) => e);
    expect(err).to.be.instanceOf(ImageBuildTimeoutError);
    expect(err.step).to.match(/RUN echo started && sleep 30/);
    expect(Date.now() - started).to.be.lessThan(10_000);
  });

  it('pushing to a registry that is not running says it is unreachable', async () => {
    const port = await closedPort();
    const tag = tagFor('unreachable', `127.0.0.1:${port}`);
    await engine.getImage(baseOsImage(release)).tag({ repo: tag.slice(0, tag.lastIndexOf(':')), tag: tag.slice(tag.lastIndexOf(':') + 1) });
    localImages.push(tag);
    const err = await pushImage(engine, tag).catch((e) => e);
    expect(err).to.be.instanceOf(RegistryUnreachableError);
    expect(err.message).to.include(`127.0.0.1:${port}`);
  });

  describe('with a registry that wants credentials', () => {
    let secured: TestRegistry;
    before(async () => {
      secured = await startTestRegistry({ auth: true });
    });
    after(async () => secured?.dispose());

    it('push without credentials: PushUnauthorizedError saying none were found', async () => {
      const tag = tagFor('noauth', secured.address);
      await engine.getImage(baseOsImage(release)).tag({ repo: `${secured.address}/ocp-e2e/layered`, tag: `${runId}-noauth` });
      localImages.push(tag);
      const err = await pushImage(engine, tag).catch((e) => e);
      expect(err).to.be.instanceOf(PushUnauthorizedError);
      expect(err.hadCredentials).to.equal(false);
      expect(err.message).to.include(`No credentials for ${secured.address}`);
    });

    it('push with wrong credentials: PushUnauthorizedError, and the secret is never shown', async () => {
      const tag = tagFor('badauth', secured.address);
      await engine.getImage(baseOsImage(release)).tag({ repo: `${secured.address}/ocp-e2e/layered`, tag: `${runId}-badauth` });
      localImages.push(tag);
      const wrong = parseDockerConfig(markerPullSecret(secured.address, MARKER_PASSWORD + '-wrong'));
      const err = await pushImage(engine, tag, { auth: wrong }).catch((e) => e);
      expect(err).to.be.instanceOf(PushUnauthorizedError);
      expect(err.hadCredentials).to.equal(true);
      expect(err.message + String(err.stack)).to.not.include(MARKER_PASSWORD);
    });

    it('push and private base pull with the pull secret work, and no output shows the secret', async () => {
      const credentials = parseDockerConfig(markerPullSecret(secured.address));
      const baseTag = `${secured.address}/ocp-e2e/private-base:${runId}`;
      await engine.getImage(baseOsImage(release)).tag({ repo: `${secured.address}/ocp-e2e/private-base`, tag: runId });
      localImages.push(baseTag);
      const base = await pushImage(engine, baseTag, { auth: credentials });
      // no local name of the private base is left (its tag nor its digest), so the build must ask the registry
      await removeImage(engine, baseTag);
      await removeImage(engine, base.pullspec);

      // Without credentials the private base cannot be pulled: an unauthorised base image error.
      const denied = await buildImage(engine, {
        contextDir: LAYERED_OS_DIR,
        containerfile: REPORT_CONTAINERFILE,
        buildArgs: { BASE_IMAGE: base.pullspec },
        tag: tagFor('private-denied', secured.address),
        // podman would use its local copy of the same digest (pushed from baseOsImage(release)) without asking
        pull: true,
      }).catch((e) => e);
      expect(denied, String(denied)).to.be.instanceOf(BaseImageUnavailableError);
      expect(denied.unauthorized).to.equal(true);

      const tag = tagFor('private', secured.address);
      localImages.push(tag, base.pullspec);
      const lines: string[] = [];
      await buildImage(engine, {
        contextDir: LAYERED_OS_DIR,
        containerfile: REPORT_CONTAINERFILE,
        buildArgs: { BASE_IMAGE: base.pullspec },
        tag,
        registryConfig: credentials,
        onOutput: (l) => lines.push(l),
      });
      const pushed = await pushImage(engine, tag, { auth: credentials });
      expect(pushed.digest).to.match(/^sha256:[0-9a-f]{64}$/);
      expect(lines.join('\n')).to.not.include(MARKER_PASSWORD);
      expect(JSON.stringify(pushed)).to.not.include(MARKER_PASSWORD);
      expect(new RegistryCredentials().hosts()).to.deep.equal([]);
    });
  });
});
