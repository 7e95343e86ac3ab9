/**
 * The suite's image-mode helpers against the mock API server with the 4.20 CRDs (MachineOSConfig and MachineOSBuild
 * validated as a real server validates them), objects made by hand: the test plays the build controller, the node
 * controller and the daemons.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { startApiServer, type RunningApiServer } from '../../mock/index.js';
import { Cluster } from '../../helpers/cluster.js';
import { ClusterWatcher } from '../../helpers/cluster-watcher.js';
import type { WaitContext } from '../../helpers/cluster-waits.js';
import { Ledger } from '../../helpers/ledger.js';
import { leakedObjects } from '../../helpers/cleanup.js';
import { RegistryCredentials } from '../../lib/oci/credentials.js';
import { machineOSConfigObject } from '../../helpers/image-mode/machine-os-config.js';
import { pushCredentialsFor, pushSecretObject } from '../../helpers/image-mode/push-secret.js';
import { imageModePushTarget } from '../../helpers/image-mode/push-target.js';
import { buildConditionsLine, ImageBuildFailedError, waitForMachineOSBuild } from '../../helpers/image-mode/build-wait.js';
import { failedStepOf } from '../../helpers/image-mode/build-log.js';
import { nodeOnImage, waitForImageRollout, waitForPoolOffImageMode } from '../../helpers/image-mode/rollout-waits.js';
import { builtFrom } from '../../helpers/image-mode/built-image.js';
import { builderRunsOperatorImage } from '../../helpers/image-mode/builder-check.js';
import { imageModeContent } from '../../helpers/image-mode/content.js';
import { multiArchReason } from '../../helpers/image-mode/applies.js';
import { WaitTimeoutError } from '../../helpers/wait.js';
import type { Node } from '../../helpers/types.js';

const CRD_DIR = new URL('../../reference/crds/4.20/', import.meta.url);
const quiet = Object.assign((l: string) => { if (process.env.DEBUG_IM) console.log(l); }, { end() {}, note: (l: string) => { if (process.env.DEBUG_IM) console.log(l); } });
const fast = { timeFactor: 1 };
const POOL = 'ocp-e2e-15';
const RENDERED = `rendered-${POOL}-aaaa`;
const IMAGE = `127.0.0.1:5000/ocp/os@sha256:${'ab'.repeat(32)}`;
const now = () => new Date().toISOString();
const cond = (type: string, status: 'True' | 'False', reason = type, message = '') => ({ type, status, reason, message, lastTransitionTime: now() });
const buildConditions = (state: 'building' | 'succeeded' | 'failed') => [
  cond('Prepared', 'False', 'Prepared', 'Build Prepared and Pending'),
  cond('Building', state === 'building' ? 'True' : 'False', 'Building', 'Image Build In Progress'),
  cond('Succeeded', state === 'succeeded' ? 'True' : 'False', 'Ready', 'Build Ready'),
  cond('Failed', state === 'failed' ? 'True' : 'False', 'Failed', 'Build Failed'),
  cond('Interrupted', 'False', 'Interrupted', 'Build Interrupted'),
];

describe('helpers: on-cluster image mode (MachineOSConfig, MachineOSBuild, the image on the nodes)', function () {
  this.timeout(30_000);
  let server: RunningApiServer;
  let cluster: Cluster;
  let watcher: ClusterWatcher;
  let waits: WaitContext;

  before(async () => {
    const crds = readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml')).map((f) => parse(readFileSync(new URL(f, CRD_DIR), 'utf8')) as object);
    server = await startApiServer({ crds, bookmarkIntervalMs: 500 });
    const path = join(mkdtempSync(join(tmpdir(), 'ocp-e2e-image-mode-')), 'kubeconfig');
    await server.writeKubeconfig(path);
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    cluster = new Cluster(kc);
    await cluster.client.create('Namespace', { metadata: { name: 'openshift-machine-config-operator' } });
    await cluster.client.create('MachineConfigPool', {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfigPool',
      metadata: { name: POOL },
      spec: { nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${POOL}`]: '' } }, machineConfigSelector: {}, configuration: { name: RENDERED, source: [] } },
    });
    await setPool('updated');
    await cluster.client.create('Node', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-1', labels: { [`node-role.kubernetes.io/${POOL}`]: '' }, annotations: nodeAnnotations({}) } });
    await cluster.client.patchStatus('Node', 'worker-1', { conditions: [{ type: 'Ready', status: 'True' }] });
    watcher = new ClusterWatcher(cluster);
    await watcher.start();
    waits = { watcher, caps: fast, progress: quiet, minBudgetMs: 3000 };
  });
  after(async () => {
    watcher?.stop();
    await server?.close();
  });

  function nodeAnnotations(image: { desired?: string; current?: string }): Record<string, string> {
    return {
      'machineconfiguration.openshift.io/currentConfig': RENDERED,
      'machineconfiguration.openshift.io/desiredConfig': RENDERED,
      'machineconfiguration.openshift.io/state': 'Done',
      ...(image.desired ? { 'machineconfiguration.openshift.io/desiredImage': image.desired } : {}),
      ...(image.current ? { 'machineconfiguration.openshift.io/currentImage': image.current } : {}),
    };
  }

  async function setPool(state: 'updated' | 'updating'): Promise<void> {
    const updated = state === 'updated';
    await cluster.client.patchStatus('MachineConfigPool', POOL, {
        observedGeneration: 1,
        configuration: { name: RENDERED, source: [] },
        machineCount: 1,
        updatedMachineCount: updated ? 1 : 0,
        readyMachineCount: updated ? 1 : 0,
        unavailableMachineCount: 0,
        degradedMachineCount: 0,
        conditions: [cond('Updated', updated ? 'True' : 'False'), cond('Updating', updated ? 'False' : 'True'), cond('Degraded', 'False'), cond('NodeDegraded', 'False'), cond('RenderDegraded', 'False')],
    });
  }

  async function makeBuild(name: string): Promise<void> {
    await cluster.client.create('MachineOSBuild', {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineOSBuild',
      metadata: { name },
      spec: { machineConfig: { name: RENDERED }, machineOSConfig: { name: POOL }, renderedImagePushSpec: `127.0.0.1:5000/ocp/os:${name}` },
    });
  }

  it('writes the documented v1 MachineOSConfig, which the release\'s CRD accepts, and refuses a fragment the MCO cannot append', async () => {
    const { containerfile, checks } = imageModeContent({ image: '127.0.0.1:5000/ocp/ext@sha256:' + '1'.repeat(64), package: 'usbguard' });
    expect(containerfile).to.match(/^FROM configs AS final\nCOPY --from=127\.0\.0\.1:5000\/ocp\/ext@sha256:1+ \/usr\/share\/rpm-ostree\/extensions\/ \/var\/tmp\/ocp-e2e-extensions\/\nRUN /);
    expect(containerfile).to.include('rpm-ostree install usbguard').and.include('systemctl enable ocp-e2e-image-mode.service');
    expect(checks).to.deep.equal({ files: [{ path: '/etc/ocp-e2e/image-mode.conf', mode: 0o640, contents: 'made-by=ocp-e2e image mode\n' }], units: [{ name: 'ocp-e2e-image-mode.service', enabled: true }], packages: ['usbguard'] });
    const mosc = machineOSConfigObject({ pool: POOL, containerfile, pushSpec: '127.0.0.1:5000/ocp/os:run-1-e2e-015', pushSecret: 'ocp-e2e-push-x', runId: 'run-1' });
    await cluster.client.create('MachineOSConfig', mosc);
    const stored = await cluster.client.read<typeof mosc & { metadata: { name: string } }>('MachineOSConfig', POOL);
    expect(stored.spec).to.deep.include({ imageBuilder: { imageBuilderType: 'Job' }, renderedImagePushSpec: '127.0.0.1:5000/ocp/os:run-1-e2e-015' });
    expect(stored.spec?.containerFile).to.deep.equal([{ containerfileArch: 'NoArch', content: containerfile }]);
    expect(await leakedObjects(cluster, 'run-1', 'ocp-e2e')).to.deep.equal([`MachineOSConfig/${POOL}`]);
    expect(() => machineOSConfigObject({ pool: POOL, containerfile: 'FROM scratch\n', pushSpec: 'r/x:y', pushSecret: 's', runId: 'r' })).to.throw(/FROM configs AS final/);
    expect(() => machineOSConfigObject({ pool: POOL, containerfile: 'FROM configs AS final\n' + 'RUN true\n'.repeat(500), pushSpec: 'r/x:y', pushSecret: 's', runId: 'r' })).to.throw(/at most 4096/);
  });

  it('makes the push secret of the push repository\'s credentials only, and says which hosts it had when none fits', () => {
    const all = new RegistryCredentials([['127.0.0.1:5000', { username: 'u', password: 'pushpw1' }], ['quay.io', { username: 'q', password: 'quaypw1' }]]);
    const secret = pushSecretObject('ocp-e2e-push-p', pushCredentialsFor(all, '127.0.0.1:5000/ocp/os:t'), 'run-1') as { data: Record<string, string>; type: string; metadata: { namespace: string } };
    expect(secret.type).to.equal('kubernetes.io/dockerconfigjson');
    expect(secret.metadata.namespace).to.equal('openshift-machine-config-operator');
    const json = JSON.parse(Buffer.from(secret.data['.dockerconfigjson']!, 'base64').toString()) as { auths: Record<string, { auth: string }> };
    expect(Object.keys(json.auths)).to.deep.equal(['127.0.0.1:5000']);
    expect(() => pushCredentialsFor(all, 'registry.example:5000/x/os:t')).to.throw(/no registry credentials for registry\.example:5000\/x\/os.*hold 127\.0\.0\.1:5000, quay\.io/);
  });

  it('pushes to --image-repo, else the reference registry, else says the cluster has no internal registry', async () => {
    expect((await imageModePushTarget(cluster, { imageRepo: 'quay.io/me/os:old', runId: 'run-1' }, { isReference: false }, 'E2E-015')).pushSpec).to.equal('quay.io/me/os:run-1-e2e-015');
    expect(await imageModePushTarget(cluster, { runId: 'run-1' }, { isReference: true, imageRepo: '127.0.0.1:5000/ocp/layered-os' }, 'E2E-015')).to.deep.equal({ pushSpec: '127.0.0.1:5000/ocp/layered-os:run-1-e2e-015', source: 'reference registry', secret: 'from run credentials' });
    await imageModePushTarget(cluster, { runId: 'run-1' }, { isReference: false }, 'E2E-015').then(
      () => expect.fail('no target'),
      (e: Error) => expect(e.message).to.match(/pass --image-repo.*no internal registry/),
    );
  });

  it('waits for the build of the pool\'s rendered config, naming its conditions and Job while it runs', async () => {
    const lines: string[] = [];
    const progress = Object.assign((l: string) => void lines.push(l), { end() {} });
    const waiting = waitForMachineOSBuild(cluster, cluster.kubeConfig, { ...waits, progress }, { pool: POOL, machineOSConfig: POOL });
    await makeBuild(`${POOL}-build-a`);
    await cluster.client.patchStatus('MachineOSBuild', `${POOL}-build-a`, { conditions: buildConditions('building'), buildStart: now() });
    await new Promise((r) => setTimeout(r, 300));
    await cluster.client.patchStatus('MachineOSBuild', `${POOL}-build-a`, { conditions: buildConditions('succeeded'), digestedImagePushSpec: IMAGE });
    const build = await waiting;
    expect(build.metadata.name).to.equal(`${POOL}-build-a`);
    expect(buildConditionsLine(build)).to.equal('Prepared=False Building=False Succeeded=True Failed=False Interrupted=False');
    expect(lines.join('\n')).to.include(`machineosbuild/${POOL}-build-a of ${RENDERED} (job build-${POOL}-build-a -n openshift-machine-config-operator): Prepared=False Building=True`);
  });

  it('ignores the builds it is told to (the one before an upgrade) and times out saying what it saw', async () => {
    const error = await waitForMachineOSBuild(cluster, cluster.kubeConfig, { ...waits, caps: { timeFactor: 60_000 }, minBudgetMs: 1500, compressedClockSlackMs: 0 }, { pool: POOL, machineOSConfig: POOL, excluding: [`${POOL}-build-a`] }).then(
      () => expect.fail('no other build exists'),
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(WaitTimeoutError);
    expect((error as Error).message).to.include(`no MachineOSBuild of MachineOSConfig ${POOL} for ${RENDERED} other than ${POOL}-build-a (builds: ${POOL}-build-a)`);
  });

  it('stops at once on a Failed build, naming the build and its Job', async () => {
    await makeBuild(`${POOL}-build-b`);
    await cluster.client.patchStatus('MachineOSBuild', `${POOL}-build-b`, { conditions: buildConditions('failed') });
    const started = Date.now();
    const error = await waitForMachineOSBuild(cluster, cluster.kubeConfig, { ...waits, minBudgetMs: 20_000 }, { pool: POOL, machineOSConfig: POOL, excluding: [`${POOL}-build-a`] }).then(
      () => expect.fail('the build failed'),
      (e: unknown) => e as ImageBuildFailedError,
    );
    expect(Date.now() - started).to.be.lessThan(10_000);
    expect(error).to.be.instanceOf(ImageBuildFailedError);
    expect(error.message).to.match(new RegExp(`^machineosbuild/${POOL}-build-b failed \\(Prepared=False Building=False Succeeded=False Failed=True Interrupted=False\\) in job build-${POOL}-build-b -n openshift-machine-config-operator`));
    expect(error.message).to.include(`no pod of job build-${POOL}-build-b is left to read a log from`);
  });

  it('on timeout, tells a failed Job whose build\'s conditions never moved as the build\'s failure', async () => {
    const name = `${POOL}-build-c`;
    await makeBuild(name);
    await cluster.client.create('Job', {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: `build-${name}`, namespace: 'openshift-machine-config-operator' },
      spec: { backoffLimit: 3, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'create-digest-configmap', image: 'x' }] } } },
    });
    await cluster.client.patchStatus('Job', `build-${name}`, { failed: 4, conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', lastTransitionTime: now() }] }, 'openshift-machine-config-operator');
    const error = await waitForMachineOSBuild(cluster, cluster.kubeConfig, { ...waits, caps: { timeFactor: 60_000 }, minBudgetMs: 1500, compressedClockSlackMs: 0 }, { pool: POOL, machineOSConfig: POOL, excluding: [`${POOL}-build-a`, `${POOL}-build-b`] }).then(
      () => expect.fail('the job failed'),
      (e: unknown) => e as ImageBuildFailedError,
    );
    expect(error).to.be.instanceOf(ImageBuildFailedError);
    expect(error.message).to.include(`machineosbuild/${name} failed (Prepared=- Building=- Succeeded=- Failed=- Interrupted=-; its job is Failed (BackoffLimitExceeded: Job has reached the specified backoff limit) but the MachineOSBuild's conditions never said so) in job build-${name}`);
  });

  it('reads the failing step from a build log, buildah\'s or dockerd\'s', () => {
    const buildah = 'STEP 1/9: FROM base AS extract\nSTEP 8/9: RUN rpm-ostree install nosuchpkg\nerror: Packages not found: nosuchpkg\nError: building at STEP "RUN rpm-ostree install nosuchpkg": exit status 1\n';
    expect(failedStepOf(buildah).step).to.equal('Step 8/9 : RUN rpm-ostree install nosuchpkg');
    expect(failedStepOf(buildah).lastLines.at(-1)).to.match(/exit status 1/);
    expect(failedStepOf('Step 3/4 : RUN false\nThe command returned a non-zero code: 1').step).to.equal('Step 3/4 : RUN false');
    expect(failedStepOf('cannot pull base').step).to.equal(undefined);
  });

  it('judges a node by desiredImage, currentImage and its config, and waits for the roll-out and the revert', async () => {
    const node = (a: Record<string, string>) => ({ metadata: { name: 'worker-1', annotations: a } }) as Node;
    expect(nodeOnImage(node(nodeAnnotations({ desired: IMAGE, current: IMAGE })), RENDERED, IMAGE).ok).to.equal(true);
    expect(nodeOnImage(node(nodeAnnotations({ desired: IMAGE })), RENDERED, IMAGE).why).to.equal(`node worker-1 has desiredImage ${IMAGE} and currentImage (none), expected both ${IMAGE}`);

    const rollout = waitForImageRollout(waits, POOL, RENDERED, IMAGE);
    await setPool('updating');
    await cluster.client.patch('Node', 'worker-1', { metadata: { annotations: nodeAnnotations({ desired: IMAGE }) } });
    await new Promise((r) => setTimeout(r, 200));
    await cluster.client.patch('Node', 'worker-1', { metadata: { annotations: nodeAnnotations({ desired: IMAGE, current: IMAGE }) } });
    await setPool('updated');
    await rollout;

    // the ledger's undo of a MachineOSConfig: deleted, then the pool waited for until its node left image mode
    const ledger = new Ledger({ cluster, waits, target: { reportsDir: '/tmp' }, engine: async () => expect.fail('no engine') });
    ledger.record({ kind: 'MachineOSConfig', name: POOL, pool: POOL });
    expect(ledger.left[0]!.description).to.equal(`delete MachineOSConfigs ${POOL}, then wait until pools ${POOL} are back on the release image (no desiredImage/currentImage on their nodes, pool Updated)`);
    const undone = ledger.runAll();
    await new Promise((r) => setTimeout(r, 300));
    expect(await cluster.client.get('MachineOSConfig', POOL)).to.equal(undefined);
    await cluster.client.patch('Node', 'worker-1', { metadata: { annotations: { 'machineconfiguration.openshift.io/desiredImage': null, 'machineconfiguration.openshift.io/currentImage': null } } });
    const report = await undone;
    expect(report.failed).to.deep.equal([]);
    await waitForPoolOffImageMode(waits, POOL);
  });

  it('reads a build\'s labels as built FROM the base, and refuses a pool of several architectures', () => {
    const labels = { baseOSContainerImage: 'r/rhcos@sha256:1', machineconfig: RENDERED, machineconfigpool: POOL };
    expect(builtFrom(IMAGE, labels, { base: 'r/rhcos@sha256:1', rendered: RENDERED, pool: POOL }).ok).to.equal(true);
    expect(builtFrom(IMAGE, labels, { base: 'r/rhcos@sha256:2', rendered: RENDERED, pool: POOL }).why).to.equal(`image ${IMAGE} is labelled baseOSContainerImage=r/rhcos@sha256:1 (expected r/rhcos@sha256:2)`);
    const pool = { metadata: { name: 'p' }, spec: { nodeSelector: { matchLabels: { r: '' } } } };
    const n = (name: string, architecture: string) => [name, { metadata: { name, labels: { r: '' } }, status: { nodeInfo: { architecture } } }] as const;
    const snap = (nodes: ReturnType<typeof n>[]) => ({ pools: new Map([['p', pool]]), nodes: new Map(nodes), operators: new Map(), machineConfigs: new Map() }) as never;
    expect(multiArchReason(snap([n('a', 'amd64'), n('b', 'amd64')]), 'p')).to.equal(undefined);
    expect(multiArchReason(snap([n('a', 'amd64'), n('b', 'arm64')]), 'p')).to.match(/^pool p has nodes of several architectures \(amd64: a; arm64: b\): on-cluster image mode does not support multi-arch compute/);
  });

  it('tells a builder left on the old release\'s image (OCPBUGS-56220) from one restarted on the upgrade', () => {
    const pod = (name: string, image: string, extra: Record<string, unknown> = {}) =>
      ({ metadata: { name, labels: { 'k8s-app': 'machine-os-builder' }, ...extra }, spec: { containers: [{ name: 'machine-os-builder', image }] }, status: { phase: 'Running' } });
    expect(builderRunsOperatorImage([pod('b-new', 'r:4.21')], 'r:4.21', '4.21.0', 'm-1').ok).to.equal(true);
    // the old pod on its way out does not count
    expect(builderRunsOperatorImage([pod('b-old', 'r:4.20', { deletionTimestamp: now() }), pod('b-new', 'r:4.21')], 'r:4.21', '4.21.0', 'm-1').ok).to.equal(true);
    expect(builderRunsOperatorImage([pod('b-old', 'r:4.20')], 'r:4.21', '4.21.0', 'm-1').why).to.equal(
      "machine-os-builder was not restarted on the upgrade to 4.21.0: pod b-old runs r:4.20, not r:4.21 (the machine-config-operator image of 4.21.0), so machineosbuild/m-1 was made by the old release's build controller (OCPBUGS-56220, fixed by MCO 3b58bc2ab)");
    expect(builderRunsOperatorImage([], 'r:4.21', '4.21.0', 'm-1').why).to.match(/^no machine-os-builder pod is running/);
  });
});
