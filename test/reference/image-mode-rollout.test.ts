/**
 * Image mode reaching the nodes (issue 44): the node controller holds a pool with a MachineOSConfig until its build
 * succeeded and the MachineOSConfig names the image, then points each node at the build's config and the image in one
 * write; the daemon boots the image and records it as currentImage; deleting the MachineOSConfig sends the nodes back
 * to the rendered config's OS image. The MachineOSConfig and MachineOSBuilds are made by hand here, as the build
 * controller would make them, so this tests the node controller and the daemons alone. Per release (4.19 against
 * 4.20), the pool's status for a failed build is checked on calculateStatus, since no profile runs 4.19's code at install.
 */
import { expect } from 'chai';
import type { V1Node } from '@kubernetes/client-node';
import { ANN, LABEL, MC_API_VERSION } from '../../reference/constants.js';
import { calculateStatus, chooseCandidates } from '../../reference/mco/node-status.js';
import { canLayeredContinue, type MachineOSBuildView, type MachineOSConfigView } from '../../reference/mco/layered-pool.js';
import type { MachineConfigPool } from '../../reference/mco/types.js';
import { MCO_4_19, MCO_4_20 } from '../../reference/profiles/mco-code.js';
import { bootedImage, cond, customImage, describeCluster, startHarness, waitFor, type Harness, type Obj } from './support/cluster.js';

const T0 = '2026-01-01T00:00:00Z';
const POOL = 'layered';
const IMAGE = 'registry.example.com/ocp/layered@sha256:' + 'a'.repeat(64);

/** The five MachineOSBuild conditions with `state` True (MCO pkg/apihelpers/machineosbuild.go's texts). */
function buildConditions(state: 'Prepared' | 'Building' | 'Failed' | 'Interrupted' | 'Succeeded'): object[] {
  const texts = { Prepared: ['Prepared', 'Build Prepared and Pending'], Building: ['Building', 'Image Build In Progress'], Failed: ['Failed', 'Build Failed'], Interrupted: ['Interrupted', 'Build Interrupted'], Succeeded: ['Ready', 'Build Ready'] } as const;
  return (Object.keys(texts) as Array<keyof typeof texts>).map((type) => ({ type, status: type === state ? 'True' : 'False', reason: texts[type][0], message: texts[type][1], lastTransitionTime: T0 }));
}

const node = (annotations: Record<string, string>): V1Node => ({
  metadata: { name: 'worker-0', annotations },
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
});

const pool = (conditions: MachineConfigPool['status'] = {}): MachineConfigPool => ({
  metadata: { name: POOL, generation: 2 },
  spec: { configuration: { name: 'rendered-layered-b' } },
  status: conditions,
});

const mosc = (image = IMAGE): MachineOSConfigView => ({ metadata: { name: POOL }, spec: { machineConfigPool: { name: POOL } }, status: { currentImagePullSpec: image } });
const mosb = (state: 'Building' | 'Failed' | 'Succeeded', digested = IMAGE): MachineOSBuildView => ({
  metadata: { name: 'layered-1234' },
  spec: { machineConfig: { name: 'rendered-layered-b' }, machineOSConfig: { name: POOL } },
  status: { conditions: buildConditions(state) as never, digestedImagePushSpec: state === 'Succeeded' ? digested : undefined },
});

describe('image mode: what the node controller decides (pure)', () => {
  const onA = node({ [ANN.currentConfig]: 'rendered-layered-a', [ANN.desiredConfig]: 'rendered-layered-a', [ANN.state]: 'Done' });

  it('holds the rollout until the build succeeded and the MachineOSConfig names its image (OCPBUGS-53408)', () => {
    expect(canLayeredContinue({ mosc: mosc(), mosb: mosb('Building') })).to.deep.equal({ proceed: false, reason: 'Image build pending' });
    expect(canLayeredContinue({ mosc: mosc('registry.example.com/ocp/layered@sha256:' + 'b'.repeat(64)), mosb: mosb('Succeeded') }).reason).to.equal(
      `Image built successfully, pullspec: registry.example.com/ocp/layered@sha256:${'b'.repeat(64)}, but MachineOSConfig "layered" has not updated yet`,
    );
    expect(canLayeredContinue({ mosc: mosc(), mosb: mosb('Failed') })).to.include({ proceed: false, error: 'image build for MachineConfigPool layered-1234 failed' });
    expect(canLayeredContinue({ mosc: mosc(), mosb: mosb('Succeeded') })).to.include({ proceed: true });
  });

  it('a node of a layered pool is a candidate until it has the build\'s config and the image; of a plain pool while it keeps a desired image', () => {
    const layered = { mosc: mosc(), mosb: mosb('Succeeded') };
    expect(chooseCandidates(pool(), [onA], layered)).to.have.length(1);
    const pointed = node({ [ANN.currentConfig]: 'rendered-layered-a', [ANN.desiredConfig]: 'rendered-layered-b', [ANN.desiredImage]: IMAGE, [ANN.state]: 'Done' });
    expect(chooseCandidates(pool(), [pointed], layered)).to.have.length(0);
    const leftOver = node({ [ANN.currentConfig]: 'rendered-layered-b', [ANN.desiredConfig]: 'rendered-layered-b', [ANN.desiredImage]: IMAGE, [ANN.currentImage]: IMAGE, [ANN.state]: 'Done' });
    expect(chooseCandidates(pool(), [leftOver], {})).to.have.length(1);
  });

  it('a failed build: 4.20 stops Updating and degrades the pool through ImageBuildDegraded; 4.19 neither', () => {
    const degradedByBuild = pool({
      conditions: [{ type: 'ImageBuildDegraded', status: 'True', reason: 'BuildFailed', message: 'Failed to build OS image for pool layered (MachineOSBuild: layered-1234): failed', lastTransitionTime: T0 }],
    });
    const objects = { mosc: mosc(), mosb: mosb('Failed') };
    expect(MCO_4_19.nodeController.imageBuildDegraded).to.equal(false);
    expect(MCO_4_20.nodeController.imageBuildDegraded).to.equal(true);
    const on420 = calculateStatus(degradedByBuild, [onA], T0, { objects, code: MCO_4_20.nodeController });
    expect(on420.conditions!.find((c) => c.type === 'Updating')).to.include({ status: 'False', message: 'Pool update stopped due to OS image build failure (mosb: layered-1234)' });
    expect(on420.conditions!.find((c) => c.type === 'Degraded')).to.include({ status: 'True', message: 'Custom OS image build failed' });
    const on419 = calculateStatus(degradedByBuild, [onA], T0, { objects, code: MCO_4_19.nodeController });
    expect(on419.conditions!.find((c) => c.type === 'Updating')).to.include({ status: 'True', message: `All nodes are updating to MachineConfig rendered-layered-b / Image ${IMAGE}` });
    expect(on419.conditions!.find((c) => c.type === 'Degraded')).to.include({ status: 'False' });
  });

  it('4.20 clears ImageBuildDegraded by a new build, and once no image-mode object is left', () => {
    const degraded = pool({ conditions: [{ type: 'ImageBuildDegraded', status: 'True', reason: 'BuildFailed', message: 'x', lastTransitionTime: T0 }] });
    const building = calculateStatus(degraded, [onA], T0, { objects: { mosc: mosc(), mosb: mosb('Building') }, code: MCO_4_20.nodeController });
    expect(building.conditions!.find((c) => c.type === 'ImageBuildDegraded')).to.include({ status: 'False', reason: 'Building', message: 'New build started' });
    expect(building.conditions!.find((c) => c.type === 'Updating')).to.include({ status: 'True', message: 'Pool is waiting for OS image build to complete (mosb: layered-1234)' });
    const gone = calculateStatus(degraded, [onA], T0, { objects: {}, code: MCO_4_20.nodeController });
    expect(gone.conditions!.find((c) => c.type === 'ImageBuildDegraded')).to.include({ status: 'False', reason: 'NoLayeredObjects' });
    expect(gone.conditions!.find((c) => c.type === 'Degraded')).to.include({ status: 'False' });
  });
});

describe('image mode on a 4.20 reference cluster (4.20-to-4.21): a pool with a hand-made MachineOSConfig and builds', function () {
  this.timeout(300_000);
  let h: Harness;
  let image: string;
  let nodeName: string;
  let firstTarget: string;
  const describe_ = () => describeCluster(h.k, h.cluster).then(async (s) => `${s}\n${JSON.stringify((await h.k.get<Obj>('MachineConfigPool', POOL))?.status?.conditions)}`);
  const getPool = () => h.k.get<Obj>('MachineConfigPool', POOL);
  const getNode = async () => (await h.k.get<Obj>('Node', nodeName))!;
  const pushSpec = () => `${h.cluster.registry}/ocp-e2e/layered-pool:latest`;
  /** A MachineOSBuild of the pool's MachineOSConfig for a rendered config, as the build controller makes one. */
  const createBuild = (name: string, renderedConfig: string) =>
    h.k.create<Obj>('MachineOSBuild', {
      apiVersion: MC_API_VERSION,
      kind: 'MachineOSBuild',
      metadata: { name },
      spec: { machineConfig: { name: renderedConfig }, machineOSConfig: { name: POOL }, renderedImagePushSpec: pushSpec() },
    });

  before(async function () {
    // the builds are made by hand here: no build controller makes its own beside them
    h = await startHarness({ profile: '4.20-to-4.21', withoutComponents: ['machine-os-builder'] });
    const workers = (await h.k.list<Obj>('Node')).items.filter((n) => n.metadata.labels?.['node-role.kubernetes.io/worker'] !== undefined);
    nodeName = workers[0]!.metadata.name!;
    await h.k.patch('Node', nodeName, { metadata: { labels: { 'node-role.kubernetes.io/layered': '' } } });
    await h.k.create<Obj>('MachineConfigPool', {
      apiVersion: MC_API_VERSION,
      kind: 'MachineConfigPool',
      metadata: { name: POOL },
      spec: {
        machineConfigSelector: { matchExpressions: [{ key: LABEL.role, operator: 'In', values: ['worker', POOL] }] },
        nodeSelector: { matchLabels: { 'node-role.kubernetes.io/layered': '' } },
      },
    });
    const settled = await waitFor('the layered pool Updated on its first rendered config', async () => {
      const p = await getPool();
      const n = await getNode();
      const target = p?.spec?.configuration?.name;
      return target && cond(p, 'Updated').status === 'True' && n.metadata.annotations?.[ANN.currentConfig] === target ? p : undefined;
    }, 120_000, describe_);
    firstTarget = settled.spec.configuration.name;
    image = await customImage(h.cluster);
  });

  after(async () => {
    await h?.cluster.stop();
  });

  it('a MachineOSConfig without a build: the pool waits for one to start and no node gets an image', async () => {
    await h.k.create<Obj>('MachineOSConfig', {
      apiVersion: MC_API_VERSION,
      kind: 'MachineOSConfig',
      metadata: { name: POOL },
      spec: { machineConfigPool: { name: POOL }, imageBuilder: { imageBuilderType: 'Job' }, renderedImagePushSecret: { name: 'push-secret' }, renderedImagePushSpec: pushSpec() },
    });
    await waitFor('the pool waiting for a build to start', async () => cond(await getPool(), 'Updating').message === `Pool is waiting for a new OS image build to start (mosc: ${POOL})`, 30_000, describe_);
    expect((await getNode()).metadata.annotations?.[ANN.desiredImage]).to.equal(undefined);
  });

  it('a Building MachineOSBuild: the pool waits for it, ImageBuildDegraded False/Building, the node is not pointed', async () => {
    await createBuild('layered-build-1', firstTarget);
    await h.k.patchStatus('MachineOSBuild', 'layered-build-1', { conditions: buildConditions('Building') });
    await waitFor('the pool waiting for the build', async () => cond(await getPool(), 'Updating').message === 'Pool is waiting for OS image build to complete (mosb: layered-build-1)', 30_000, describe_);
    expect(cond(await getPool(), 'ImageBuildDegraded')).to.include({ status: 'False', reason: 'Building', message: 'New build started' });
    expect((await getNode()).metadata.annotations?.[ANN.desiredImage]).to.equal(undefined);
  });

  it('the build succeeded but the MachineOSConfig does not name its image yet: still held', async () => {
    await h.k.patchStatus('MachineOSBuild', 'layered-build-1', { conditions: buildConditions('Succeeded'), digestedImagePushSpec: image });
    await waitFor('ImageBuildDegraded False/BuildSuccess', async () => cond(await getPool(), 'ImageBuildDegraded').reason === 'BuildSuccess', 30_000, describe_);
    // ten cluster minutes and more for the controller to act on it, if it wrongly would
    await new Promise((r) => setTimeout(r, 1500));
    expect((await getNode()).metadata.annotations?.[ANN.desiredImage]).to.equal(undefined);
  });

  it('once the MachineOSConfig names the image: desiredConfig and desiredImage together, the node boots the image, currentImage, the pool Updated with the image', async () => {
    await h.k.patchStatus('MachineOSConfig', POOL, { currentImagePullSpec: image });
    const pointed = await waitFor('the node pointed at the image', async () => {
      const n = await getNode();
      return n.metadata.annotations?.[ANN.desiredImage] ? n : undefined;
    }, 30_000, describe_);
    expect(pointed.metadata.annotations?.[ANN.desiredImage]).to.equal(image);
    expect(pointed.metadata.annotations?.[ANN.desiredConfig], 'config and image in one write').to.equal(firstTarget);
    const done = await waitFor('the node done on the image', async () => {
      const n = await getNode();
      return n.metadata.annotations?.[ANN.currentImage] === image && n.metadata.annotations?.[ANN.state] === 'Done' ? n : undefined;
    }, 120_000, describe_);
    expect(done.metadata.annotations?.[ANN.currentConfig]).to.equal(firstTarget);
    expect(bootedImage(h.cluster, done), 'what rpm-ostree status shows booted').to.equal(image);
    const p = await waitFor('the pool Updated', async () => {
      const q = await getPool();
      return cond(q, 'Updated').status === 'True' ? q : undefined;
    }, 30_000, describe_);
    expect(cond(p, 'Updated').message).to.equal(`All nodes are updated with MachineConfig ${firstTarget} / Image ${image}`);
    const mcn = await h.k.get<Obj>('MachineConfigNode', nodeName);
    expect(mcn?.spec?.configVersion?.desired).to.equal(firstTarget);
  });

  it('a new rendered config whose build failed: no node moves; the node controller writes no status meanwhile, and a paused pool shows ImageBuildDegraded as Degraded', async () => {
    await h.k.create<Obj>('MachineConfig', {
      apiVersion: MC_API_VERSION,
      kind: 'MachineConfig',
      metadata: { name: '99-layered-file', labels: { [LABEL.role]: POOL } },
      spec: { config: { ignition: { version: '3.2.0' }, storage: { files: [{ path: '/etc/layered-test', mode: 420, contents: { source: 'data:,hello' } }] } } },
    });
    const p = await waitFor('a new target', async () => {
      const q = await getPool();
      return q?.spec?.configuration?.name !== firstTarget ? q : undefined;
    }, 30_000, describe_);
    const second = p.spec.configuration.name as string;
    await waitFor('the pool waiting for a build for the new config', async () => cond(await getPool(), 'Updating').message === `Pool is waiting for a new OS image build to start (mosc: ${POOL})`, 30_000, describe_);
    await createBuild('layered-build-2', second);
    await h.k.patchStatus('MachineOSBuild', 'layered-build-2', { conditions: buildConditions('Building') });
    await waitFor('the pool waiting for build 2', async () => cond(await getPool(), 'Updating').message === 'Pool is waiting for OS image build to complete (mosb: layered-build-2)', 30_000, describe_);
    await h.k.patchStatus('MachineOSBuild', 'layered-build-2', { conditions: buildConditions('Failed') });
    // what the build controller writes on a failed build (syncBuildFailureStatus)
    const failed = { type: 'ImageBuildDegraded', status: 'True', reason: 'BuildFailed', message: 'Failed to build OS image for pool layered (MachineOSBuild: layered-build-2): failed', lastTransitionTime: T0 };
    await h.k.updateStatus<Obj>('MachineConfigPool', POOL, (current) => ({ ...current.status, conditions: [...(current.status?.conditions ?? []).filter((c: { type: string }) => c.type !== 'ImageBuildDegraded'), failed] }));
    await new Promise((r) => setTimeout(r, 1500));
    const held = await getPool();
    expect(cond(held, 'Updating').message, 'canLayeredContinue\'s error returns before syncStatusOnly').to.equal('Pool is waiting for OS image build to complete (mosb: layered-build-2)');
    expect(cond(held, 'Degraded').status).to.equal('False');
    expect((await getNode()).metadata.annotations?.[ANN.desiredConfig], 'no node moves to a config whose build failed').to.equal(firstTarget);
    // a paused pool syncs its status only, where 4.20's calculateStatus turns ImageBuildDegraded into Degraded
    await h.k.patch('MachineConfigPool', POOL, { spec: { paused: true } });
    await waitFor('the paused pool Degraded by the build', async () => cond(await getPool(), 'Degraded').message === 'Custom OS image build failed', 30_000, describe_);
    expect(cond(await getPool(), 'Degraded').status).to.equal('True');
    await h.k.patch('MachineConfigPool', POOL, { spec: { paused: false } });
  });

  it('deleting the MachineOSConfig reverts: desiredImage and currentImage gone, the node back on the rendered osImageURL, the pool no longer degraded', async () => {
    await h.k.delete('MachineOSConfig', POOL);

    const done = await waitFor('the node back on the release image', async () => {
      const n = await getNode();
      const a = n.metadata.annotations ?? {};
      return a[ANN.desiredImage] === undefined && a[ANN.currentImage] === undefined && a[ANN.state] === 'Done' && a[ANN.currentConfig] === a[ANN.desiredConfig] ? n : undefined;
    }, 120_000, describe_);
    const target = done.metadata.annotations![ANN.currentConfig]!;
    const rendered = await h.k.get<Obj>('MachineConfig', target);
    expect(rendered?.spec?.osImageURL).to.be.a('string').and.not.equal('');
    expect(bootedImage(h.cluster, done)).to.equal(rendered!.spec.osImageURL);
    const p = await waitFor('the pool Updated without an image', async () => {
      const q = await getPool();
      return cond(q, 'Updated').status === 'True' ? q : undefined;
    }, 30_000, describe_);
    expect(cond(p, 'Updated').message).to.equal(`All nodes are updated with MachineConfig ${target}`);
    expect(cond(p, 'ImageBuildDegraded')).to.include({ status: 'False', reason: 'NoLayeredObjects' });
    expect(cond(p, 'Degraded').status).to.equal('False');
  });
});
