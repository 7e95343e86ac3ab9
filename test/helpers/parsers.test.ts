import { expect } from 'chai';
import { isTransientOcError } from '../../helpers/cli-transient.js';
import { digestOf, probeScript, splitProbeOutput } from '../../helpers/node-os.js';
import { bootedImageProbe, fileProbe, kernelArgumentsProbe, kernelTypeProbe, packageInList, packageProbe, parseRpmOstreeStatus, stripTransport, unitProbe } from '../../helpers/node-probes.js';
import { maskDeep, maskSecrets, registerSecret, loadPullSecret } from '../../helpers/secrets.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTargetConfig, targetEnvironment } from '../../helpers/target.js';
import { resolveUpgradeTarget, upgradePatch } from '../../helpers/upgrade.js';
import { currentVersion } from '../../helpers/facts/cluster-version.js';
import { formatBudget, formatTargetDuration, poolRolloutClusterMinutes, wallBudgetMs } from '../../helpers/capabilities.js';
import { ClusterApiError, clusterApiError } from '../../helpers/api-errors.js';
import { classifyApiError } from '../../lib/kube/errors.js';
import { withRetry } from '../../lib/kube/retry.js';
import { parseSummary } from '../../bin/run/results/counts.js';
import type { ClusterVersion } from '../../helpers/types.js';

const DIGEST = `sha256:${'ab'.repeat(32)}`;

describe('helpers: rpm-ostree and rpm parsers (one parser for oc debug and the API debug pod)', () => {
  const status = (deployments: object[]) => JSON.stringify({ deployments, transaction: null });

  it('returns the booted deployment, stripping the ostree transport', () => {
    const booted = parseRpmOstreeStatus(
      status([
        { booted: false, 'container-image-reference': 'ostree-unverified-registry:quay.io/old/os@sha256:' + '11'.repeat(32) },
        { booted: true, 'container-image-reference': `ostree-unverified-registry:quay.io/me/os@${DIGEST}`, 'container-image-reference-digest': DIGEST },
      ]),
      'oc debug',
    );
    expect(booted).to.deep.equal({ image: `quay.io/me/os@${DIGEST}`, digest: DIGEST, source: 'oc debug' });
  });

  it('takes the digest from the reference when the digest field is absent, and reads pivot:// origins', () => {
    const booted = parseRpmOstreeStatus(status([{ booted: true, 'custom-origin': [`pivot://quay.io/x/os@${DIGEST}`] }]), 'oc debug');
    expect(booted.image).to.equal(`quay.io/x/os@${DIGEST}`);
    expect(booted.digest).to.equal(DIGEST);
  });

  it('fails with the reason when nothing is booted or the JSON is broken', () => {
    expect(() => parseRpmOstreeStatus(status([{ booted: false }]), 'oc debug')).to.throw(/no booted deployment \(1 deployments\)/);
    expect(() => parseRpmOstreeStatus('{not json', 'oc debug')).to.throw(/not JSON/);
    expect(() => parseRpmOstreeStatus(status([{ booted: true }]), 'oc debug')).to.throw(/no container-image-reference/);
  });

  it('runs every probe in one script, each between its own markers, and refuses names that carry shell syntax', () => {
    const zsh = packageProbe('zsh');
    const script = probeScript([bootedImageProbe, zsh]);
    expect(script).to.equal(
      'exec 2>&1; ' +
      "echo '--- ocp-e2e probe: booted image ---'; rpm-ostree status --json; echo; echo '--- ocp-e2e probe end: booted image ---'; " +
        "echo '--- ocp-e2e probe: package zsh ---'; rpm -q zsh; echo; echo '--- ocp-e2e probe end: package zsh ---'",
    );
    expect(() => probeScript([zsh, packageProbe('zsh')])).to.throw(/asked twice/);
    expect(() => packageProbe('zsh; reboot')).to.throw(/not a package name/);
    expect(() => fileProbe("/etc/x'; reboot; '")).to.throw(/not a file path/);
    expect(() => fileProbe('etc/relative')).to.throw(/not a file path/);
    expect(() => unitProbe('x.service; reboot')).to.throw(/not a systemd unit name/);
  });

  it("keeps each fragment's complaints on stderr in its own section, in order, on stdout alone", async () => {
    // fragments that write stdout and stderr in turn, as stat (missing file) then systemctl (unknown unit) do
    const noisy = (name: string, script: string) => ({ name, script, parse: (section: string) => section });
    const probes = [noisy('first', "echo a; echo 'b: no such file' >&2; echo c"), noisy('second', "echo 'd: not found' >&2; echo e")];
    const { execFileSync } = await import('node:child_process');
    // stderr is dropped here, as `oc debug` drops it: every answer must be in stdout, where order holds
    const stdout = execFileSync('sh', ['-c', probeScript(probes)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const r = splitProbeOutput('n1', stdout, probes, 'oc debug');
    expect(r.get(probes[0]!)).to.equal('a\nb: no such file\nc\n');
    expect(r.get(probes[1]!)).to.equal('d: not found\ne\n');
  });

  /** What `sh -c probeScript(probes)` prints when each fragment prints `answers[i]`. */
  const printed = (probes: Array<{ name: string }>, answers: string[]): string =>
    probes.map((p, i) => `--- ocp-e2e probe: ${p.name} ---\n${answers[i]}\n--- ocp-e2e probe end: ${p.name} ---\n`).join('');

  it('cuts the output into each probe\'s exact answer, a final newline or none, and parses each on its own', () => {
    const json = status([{ booted: true, 'container-image-reference': `ostree-unverified-registry:quay.io/me/os@${DIGEST}` }]);
    const [zsh, fish] = [packageProbe('zsh'), packageProbe('fish')];
    const probes = [bootedImageProbe, zsh, fish, kernelArgumentsProbe, fileProbe('/etc/a'), fileProbe('/etc/b'), fileProbe('/etc/none'), unitProbe('a.service'), unitProbe('b.service'), kernelTypeProbe];
    const out = printed(probes, [
      `${json}\n`,
      'zsh-5.8-9.el9.x86_64\n',
      'package fish is not installed\n',
      'BOOT_IMAGE=(hd0,gpt3)/ostree/rhcos-1/vmlinuz-4.18.0 ostree=/ostree/boot.1/rhcos/1/0 root=UUID=abc rw  nosmt z=1\n',
      '644\nline one\nline two',
      '4755\nends with a newline\n\n',
      "stat: cannot stat '/etc/none': No such file or directory\n",
      'enabled\n',
      'disabled\n',
      '4.18.0-372.26.1.rt7.183.el8_6.x86_64\n',
    ]);
    const r = splitProbeOutput('n1', out, probes, 'debug pod');
    expect(r.get(bootedImageProbe)).to.deep.equal({ image: `quay.io/me/os@${DIGEST}`, digest: DIGEST, source: 'debug pod' });
    expect(r.get(zsh)).to.equal('zsh-5.8-9.el9');
    expect(r.get(fish)).to.equal(undefined);
    expect(r.get(kernelArgumentsProbe)).to.deep.equal(['BOOT_IMAGE=(hd0,gpt3)/ostree/rhcos-1/vmlinuz-4.18.0', 'ostree=/ostree/boot.1/rhcos/1/0', 'root=UUID=abc', 'rw', 'nosmt', 'z=1']);
    expect(r.get(fileProbe('/etc/a'))).to.deep.equal({ exists: true, mode: 0o644, contents: 'line one\nline two' });
    expect(r.get(fileProbe('/etc/b'))).to.deep.equal({ exists: true, mode: 0o4755, contents: 'ends with a newline\n\n' });
    expect(r.get(fileProbe('/etc/none'))).to.deep.equal({ exists: false, says: "stat: cannot stat '/etc/none': No such file or directory" });
    expect(r.get(unitProbe('a.service'))).to.deep.equal({ state: 'enabled', enabled: true });
    expect(r.get(unitProbe('b.service'))).to.deep.equal({ state: 'disabled', enabled: false });
    expect(r.get(kernelTypeProbe)).to.deep.equal({ kernelType: 'realtime', release: '4.18.0-372.26.1.rt7.183.el8_6.x86_64' });
    const plain = splitProbeOutput('n1', printed([kernelTypeProbe, fileProbe('/etc/empty')], ['4.18.0-372.26.1.el8_6.x86_64\n', '600\n']), [kernelTypeProbe, fileProbe('/etc/empty')], 'oc debug');
    expect(plain.get(kernelTypeProbe).kernelType).to.equal('default');
    expect(plain.get(fileProbe('/etc/empty'))).to.deep.equal({ exists: true, mode: 0o600, contents: '' });
  });

  it('says which node and probe failed and what the node printed when an answer is missing or unreadable', () => {
    expect(() => splitProbeOutput('n1', 'sh: rpm-ostree: not found\n', [bootedImageProbe], 'debug pod')).to.throw(/^node n1: the debug pod's output does not hold the answer of probe booted image: sh: rpm-ostree: not found$/);
    // cut off after the first answer (the pod was killed)
    const zsh = packageProbe('zsh');
    const cut = printed([zsh], ['zsh-5.8-9.el9.x86_64\n']) + '--- ocp-e2e probe: kernel type ---\n';
    expect(() => splitProbeOutput('n1', cut, [zsh, kernelTypeProbe], 'debug pod')).to.throw(/probe kernel type/);
    const broken = splitProbeOutput('n2', printed([bootedImageProbe, kernelTypeProbe], ['{not json\n', 'uname: not found\n']), [bootedImageProbe, kernelTypeProbe], 'oc debug');
    expect(() => broken.get(bootedImageProbe)).to.throw(/^node n2: booted image: rpm-ostree status is not JSON/);
    expect(() => broken.get(kernelTypeProbe)).to.throw(/^node n2: kernel type: uname -r did not print a kernel release: uname: not found/);
    expect(() => broken.get(zsh)).to.throw(/probe package zsh was not part of this read/);
  });

  it('strips every transport form', () => {
    expect(stripTransport('ostree-remote-registry:fedora:quay.io/a/b:tag')).to.equal('quay.io/a/b:tag');
    expect(stripTransport('ostree-unverified-image:docker://quay.io/a/b')).to.equal('quay.io/a/b');
    expect(stripTransport('quay.io/a/b')).to.equal('quay.io/a/b');
    expect(digestOf(`r/x@${DIGEST}`)).to.equal(DIGEST);
    expect(digestOf('r/x:tag')).to.equal(undefined);
  });

  it('finds a package by name in name-version-release listings, not by prefix', () => {
    const list = ['zsh-html-5.5.1-10.el8', 'bash-5.1.8-6.el9', 'zsh-5.8-9.el9'];
    expect(packageInList(list, 'zsh')).to.equal('zsh-5.8-9.el9');
    expect(packageInList(['zsh-html-5.5.1-10.el8'], 'zsh')).to.equal(undefined);
    expect(packageInList(['package zsh is not installed'], 'zsh')).to.equal(undefined);
  });
});

describe('helpers: which oc debug failures are asked again', () => {
  it('passing API errors (as oc 4.12 prints them under faults) are; a problem of the node or the request is not', () => {
    for (const stderr of [
      'Error from server (InternalError): Internal error occurred: injected fault',
      'error: Post "https://127.0.0.1:6443/api/v1/namespaces": EOF',
      'error: the server doesn\'t have a resource type "node"', // discovery failed
      'Error from server (TooManyRequests): the server has received too many requests',
      'dial tcp 127.0.0.1:6443: connect: connection refused',
    ]) expect(isTransientOcError(stderr), stderr).to.equal(true);
    for (const stderr of [
      'Error from server (NotFound): nodes "worker-9" not found',
      'Error from server (Forbidden): pods is forbidden: User "x" cannot create resource "pods"',
      'error: the server doesn\'t have a resource type "machineconfigs"',
    ]) expect(isTransientOcError(stderr), stderr).to.equal(false);
  });
});

describe('helpers: secrets are masked everywhere', () => {
  it('masks registered values, their base64 form and the credentials of a pull secret', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-secret-'));
    const file = join(dir, 'pull-secret.json');
    const auth = Buffer.from('robot:S3cretPassw0rd-MARKER').toString('base64');
    writeFileSync(file, JSON.stringify({ auths: { 'quay.io': { auth, email: 'x@example.com' } } }));
    const secret = loadPullSecret(file);
    expect(Object.keys(secret.auths)).to.deep.equal(['quay.io']);
    const text = `pushing with ${auth} as robot:S3cretPassw0rd-MARKER, password S3cretPassw0rd-MARKER`;
    const masked = maskSecrets(text);
    expect(masked).to.not.include('S3cretPassw0rd-MARKER');
    expect(masked).to.not.include(auth);
    expect(maskDeep({ nested: [{ v: 'S3cretPassw0rd-MARKER' }] })).to.deep.equal({ nested: [{ v: '***' }] });
  });

  it('ignores values too short to mask safely', () => {
    registerSecret('ab');
    expect(maskSecrets('abab cab')).to.equal('abab cab');
  });

  it('says what is wrong with a pull secret file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-secret-'));
    writeFileSync(join(dir, 'bad.json'), 'auths: nope');
    expect(() => loadPullSecret(join(dir, 'bad.json'))).to.throw(/is not JSON; expected \{"auths"/);
    expect(() => loadPullSecret(join(dir, 'missing.json'))).to.throw(/cannot read the pull secret/);
  });
});

describe('helpers: target configuration from the environment', () => {
  it('round-trips through the environment the run command sets', () => {
    const config = {
      kind: 'reference' as const,
      kubeconfigPath: '/tmp/kc',
      toImages: ['r/ocp/release:4.12.1', 'r/ocp/release:4.13.0'], // an upgrade path of two hops, in order
      imageRepo: 'r/ns/layered',
      pullSecretPath: '/tmp/ps.json',
      allowDisruptive: true,
      keepOnFailure: false,
      runId: 'r12010203-abcd',
      reportsDir: '/tmp/reports',
      interruptGraceSeconds: 0,
      phase: 'post' as const,
      nodeReads: 'daemon' as const,
    };
    expect(readTargetConfig(targetEnvironment(config))).to.deep.equal(config);
  });

  it('rejects what it cannot use, saying how to fix it', () => {
    expect(() => readTargetConfig({ OCP_E2E_TARGET: 'cluster' })).to.throw(/no kubeconfig: set KUBECONFIG/);
    expect(() => readTargetConfig({ KUBECONFIG: '/k', OCP_E2E_TARGET: 'prod' })).to.throw(/not a target/);
    expect(() => readTargetConfig({ KUBECONFIG: '/k', OCP_E2E_RUN_ID: 'Bad_ID' })).to.throw(/lowercase/);
    expect(() => readTargetConfig({ KUBECONFIG: '/k', OCP_E2E_INTERRUPT_GRACE_SECONDS: 'soon' })).to.throw(/not a number of seconds/);
  });
});

describe('helpers: upgrade target and patch', () => {
  const cv = (availableUpdates: { version: string; image: string }[] | null): ClusterVersion => ({
    metadata: { name: 'version' },
    status: { desired: { version: '4.12.0-a', image: 'r/rel:a' }, history: [{ state: 'Completed', version: '4.12.0-a' }], availableUpdates },
  });

  it('takes availableUpdates[0] unless --to-image is given', () => {
    expect(resolveUpgradeTarget(cv([{ version: 'b', image: 'r/rel:b' }]))).to.deep.equal({ image: 'r/rel:b', version: 'b', source: 'availableUpdates[0]' });
    expect(resolveUpgradeTarget(cv([{ version: 'b', image: 'r/rel:b' }]), 'r/rel:c')).to.deep.equal({ image: 'r/rel:c', version: undefined, source: 'explicit --to-image' });
    expect(() => resolveUpgradeTarget(cv(null))).to.throw(/no availableUpdates \(current 4.12.0-a\): pass --to-image/);
    expect(currentVersion(cv(null))).to.equal('4.12.0-a');
  });

  it('sends the same merge patch as oc adm upgrade --to-image --allow-explicit-upgrade --force', () => {
    expect(upgradePatch('r/rel:b')).to.deep.equal({ spec: { desiredUpdate: { version: '', image: 'r/rel:b', force: true } } });
  });
});

describe('helpers: budgets in cluster time', () => {
  it('scales with the clock and the pool size, with a floor', () => {
    expect(wallBudgetMs(60, { timeFactor: 1 })).to.equal(3_600_000);
    expect(wallBudgetMs(60, { timeFactor: 600 })).to.equal(6_000);
    expect(wallBudgetMs(1, { timeFactor: 600 })).to.equal(5_000);
    expect(poolRolloutClusterMinutes(3)).to.be.greaterThan(poolRolloutClusterMinutes(2));
    expect(formatTargetDuration(3_600_000, 6000, 600)).to.equal('60m00s cluster time (6.0s wall)');
    expect(formatTargetDuration(90_000, 90_000, 1)).to.equal('1m30s');
    expect(formatBudget(6000, { timeFactor: 600 })).to.equal('60m00s cluster time (at most 6.0s wall)');
    expect(formatBudget(90_000, { timeFactor: 1 })).to.equal('1m30s');
  });
});

describe('helpers: API errors carry the suite\'s hints', () => {
  const apiError = (code: number, body: object) => Object.assign(new Error(`HTTP-Code: ${code}`), { code, body });

  it('fails at once on 401/403/404/422 with the server message and a hint', async () => {
    let calls = 0;
    const err = await withRetry('list MachineConfigPool', async () => {
      calls++;
      throw apiError(404, { kind: 'Status', message: 'the server could not find the requested resource', reason: 'NotFound' });
    }, { baseDelayMs: 1, errorFor: clusterApiError }).catch((e: unknown) => e);
    expect(calls).to.equal(1);
    expect(err).to.be.instanceOf(ClusterApiError);
    expect((err as Error).message).to.match(/list MachineConfigPool failed: HTTP 404 NotFound: the server could not find.*is this an OpenShift cluster/);
    const refused = new ClusterApiError('get ClusterVersion version', classifyApiError(apiError(401, {})), 1);
    expect(refused.message).to.match(/HTTP 401: .*; the kubeconfig credentials were refused: log in again/);
    const forbidden = new ClusterApiError('list Node', classifyApiError(apiError(403, { reason: 'Forbidden', message: 'no' })), 1);
    expect(forbidden.message).to.equal('list Node failed: HTTP 403 Forbidden: no; the kubeconfig user may not do this: the suite needs the permissions of deploy/clusterrole.yaml (or cluster-admin)');
  });

  it('masks registered secrets in the message', () => {
    registerSecret('s3cr3t-token-value');
    const err = new ClusterApiError('get Secret x', classifyApiError(apiError(500, { message: 'bad s3cr3t-token-value' })), 1);
    expect(err.message).to.not.include('s3cr3t-token-value');
  });
});

describe('run command: summary line', () => {
  it('reads the last summary line of a mocha run', () => {
    expect(parseSummary('x\n1 passed, 0 failed, 2 skipped\nmore\n3 passed, 1 failed, 0 skipped\n')).to.deep.equal({ passed: 3, failed: 1, skipped: 0 });
    expect(parseSummary('crashed')).to.equal(undefined);
  });
});

describe('helpers: cleanup', () => {
  it('runs last-in-first-out, once, keeps going after a failure, and skips only the settles on a throwaway target', async () => {
    const { Cleanup } = await import('../../helpers/cleanup.js');
    const order: string[] = [];
    const cleanup = new Cleanup();
    cleanup.add({ description: 'delete a', undo: async () => void order.push('a'), settle: { description: 'wait for a to settle', run: async () => void order.push('settle a') } });
    cleanup.add({
      description: 'delete b',
      undo: async () => {
        order.push('b');
        throw new Error('b is stuck');
      },
    });
    const report = await cleanup.runAll({ skipSettling: true });
    expect(order).to.deep.equal(['b', 'a']);
    expect(report).to.deep.equal({ ran: ['delete a'], failed: [{ description: 'delete b', error: 'b is stuck' }], skipped: [{ description: 'wait for a to settle', byHand: [] }] });
    expect((await cleanup.runAll()).ran).to.deep.equal([]);
  });

  it('runs the settle after its undo, and not at all for an undo its owner did itself', async () => {
    const { Cleanup } = await import('../../helpers/cleanup.js');
    const order: string[] = [];
    const cleanup = new Cleanup();
    cleanup.add({ description: 'delete a', undo: async () => void order.push('a'), settle: { description: 'wait', run: async () => void order.push('settle a') } });
    cleanup.add({ description: 'delete b', undo: async () => void order.push('b') }).dismiss();
    expect((await cleanup.runAll()).ran).to.deep.equal(['delete a, then wait']);
    expect(order).to.deep.equal(['a', 'settle a']);
  });

  it('leaves everything in place with keep, listing what to undo newest first, with the commands', async () => {
    const { Cleanup, formatLeftActions } = await import('../../helpers/cleanup.js');
    const cleanup = new Cleanup();
    cleanup.add({ description: 'first', undo: async () => expect.fail('must not run') });
    cleanup.add({ description: 'second', undo: async () => expect.fail('must not run'), settle: { description: 'wait', run: async () => expect.fail('must not run') }, byHand: ['oc delete mc second'] });
    const { skipped } = await cleanup.runAll({ keep: true });
    expect(skipped).to.deep.equal([{ description: 'second, then wait', byHand: ['oc delete mc second'] }, { description: 'first', byHand: [] }]);
    expect(formatLeftActions(skipped)).to.equal('      - second, then wait\n          oc delete mc second\n      - first');
  });
});
