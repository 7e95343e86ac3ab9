/**
 * The monitor's record of an image-mode pool and its judges (helpers/image-mode/recorded-builds.ts): the recorder
 * keeps each node's desiredImage/currentImage beside its configs and every MachineOSBuild with its uid; the judges
 * read those intervals. A fake watcher feeds the recorder the objects a reference upgrade would show.
 */
import { expect } from 'chai';
import { UpgradeRecorder, readingsOf } from '../../helpers/monitor/record.js';
import type { ClusterSnapshot, ObjectChange } from '../../helpers/cluster-watcher.js';
import { configsCameWithTheirImages, eachBuildMadeOnce, poolNeverDegraded } from '../../helpers/image-mode/recorded-builds.js';
import type { ApiObject } from '../../helpers/types.js';

const POOL = 'ocp-e2e-15';
const OLD = `rendered-${POOL}-aaa`;
const NEW = `rendered-${POOL}-bbb`;
const IMAGE_OLD = 'registry.test/os@sha256:0001';
const IMAGE_NEW = 'registry.test/os@sha256:0002';

/** A watcher that holds what the test says and hands changes to the recorder. */
class FakeWatcher {
  private listeners: Array<(c: ObjectChange) => void> = [];
  readonly snap: ClusterSnapshot = { operators: new Map(), pools: new Map(), nodes: new Map(), machineConfigs: new Map(), machineOSConfigs: new Map(), machineOSBuilds: new Map() };
  snapshot(): ClusterSnapshot {
    return this.snap;
  }
  onChange(l: (c: ObjectChange) => void): void {
    this.listeners.push(l);
  }
  offChange(l: (c: ObjectChange) => void): void {
    this.listeners = this.listeners.filter((x) => x !== l);
  }
  node(name: string, annotations: Record<string, string>, at: Date): void {
    const node = { metadata: { name, annotations } } as ApiObject;
    this.snap.nodes.set(name, node as never);
    for (const l of this.listeners) l({ kind: 'Node', type: 'MODIFIED', object: node, at });
  }
  build(name: string, uid: string, config: string, state: string | undefined, image: string | undefined, at: Date, type: ObjectChange['type'] = 'MODIFIED'): void {
    const build = {
      metadata: { name, uid },
      spec: { machineConfig: { name: config }, machineOSConfig: { name: POOL } },
      status: { conditions: state ? [{ type: state, status: 'True' }] : [], ...(image ? { digestedImagePushSpec: image } : {}) },
    } as ApiObject;
    if (type === 'DELETED') this.snap.machineOSBuilds!.delete(name);
    else this.snap.machineOSBuilds!.set(name, build);
    for (const l of this.listeners) l({ kind: 'MachineOSBuild', type, object: build, at });
  }
}

const annotations = (desiredConfig: string, desiredImage: string, currentConfig: string, currentImage: string) => ({
  'machineconfiguration.openshift.io/desiredConfig': desiredConfig,
  'machineconfiguration.openshift.io/desiredImage': desiredImage,
  'machineconfiguration.openshift.io/currentConfig': currentConfig,
  'machineconfiguration.openshift.io/currentImage': currentImage,
  'machineconfiguration.openshift.io/state': 'Done',
});

const caps = { timeFactor: 1, clock: undefined } as never;
const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

/** An upgrade of a one-node image-mode pool, as recorded; `bad` plays each bug on the way. */
function recordUpgrade(bad: { configBeforeImage?: boolean; buildMadeTwice?: boolean } = {}) {
  const watcher = new FakeWatcher();
  watcher.build('b-old', 'uid-1', OLD, 'Succeeded', IMAGE_OLD, at(0));
  watcher.node('worker-1', annotations(OLD, IMAGE_OLD, OLD, IMAGE_OLD), at(0));
  const recorder = new UpgradeRecorder(watcher, caps, { version: '4.21.0' }, { now: () => at(0) });
  watcher.build('b-new', 'uid-2', NEW, 'Building', undefined, at(10), 'ADDED');
  if (bad.configBeforeImage) watcher.node('worker-1', annotations(NEW, IMAGE_OLD, OLD, IMAGE_OLD), at(11));
  if (bad.buildMadeTwice) {
    watcher.build('b-new', 'uid-2', NEW, 'Building', undefined, at(12), 'DELETED');
    watcher.build('b-new', 'uid-3', NEW, undefined, undefined, at(13), 'ADDED');
  }
  watcher.build('b-new', bad.buildMadeTwice ? 'uid-3' : 'uid-2', NEW, 'Succeeded', IMAGE_NEW, at(20));
  watcher.node('worker-1', annotations(NEW, IMAGE_NEW, bad.configBeforeImage ? NEW : OLD, IMAGE_OLD), at(21));
  watcher.node('worker-1', annotations(NEW, IMAGE_NEW, NEW, IMAGE_NEW), at(30));
  return recorder.stop(at(40));
}

describe('the record of an image-mode pool through an upgrade', function () {
  it('keeps the image annotations only of nodes that carry them, and each build with its config and uid', () => {
    const snap = new FakeWatcher().snapshot();
    const plain = readingsOf('Node', { metadata: { name: 'n', annotations: { 'machineconfiguration.openshift.io/desiredConfig': OLD } } }, snap);
    expect(plain.map((r) => r.condition)).to.not.include('desiredImage');
    const layered = readingsOf('Node', { metadata: { name: 'n', annotations: annotations(NEW, IMAGE_NEW, OLD, IMAGE_OLD) } }, snap);
    expect(layered.filter((r) => r.condition.endsWith('Image')).map((r) => `${r.condition}=${r.value}`)).to.deep.equal([`desiredImage=${IMAGE_NEW}`, `currentImage=${IMAGE_OLD}`]);
    const build = readingsOf('MachineOSBuild', { metadata: { name: 'b', uid: 'u' }, spec: { machineConfig: { name: NEW }, machineOSConfig: { name: POOL } }, status: { conditions: [{ type: 'Building', status: 'True' }, { type: 'Prepared', status: 'False' }] } }, snap);
    expect(build).to.deep.equal([{ condition: 'build', value: 'Building', fields: { renderedConfig: NEW, machineOSConfig: POOL, uid: 'u', image: undefined } }]);
  });

  it('holds for a rollout that moved config and image together, one build each', () => {
    const recording = recordUpgrade();
    const asked = { pool: POOL, machineOSConfig: POOL };
    expect(configsCameWithTheirImages(recording, asked)).to.include({ ok: true });
    expect(eachBuildMadeOnce(recording, asked)).to.include({ ok: true });
    expect(poolNeverDegraded(recording, POOL)).to.include({ ok: true });
  });

  it('names the node, the config, the image, the build it should have had and OCPBUGS-53408 when a config came before its image', () => {
    const fact = configsCameWithTheirImages(recordUpgrade({ configBeforeImage: true }), { pool: POOL, machineOSConfig: POOL });
    expect(fact.ok).to.equal(false);
    expect(fact.why).to.match(new RegExp(`^node worker-1 was told rendered config ${NEW} together with image ${IMAGE_OLD} at \\+0m11s of the upgrade, an image not built for that config: ${IMAGE_OLD} is the image of machineosbuild/b-old \\(rendered config ${OLD}\\); it should have had the image of machineosbuild/b-new, Building then \\(its image is ${IMAGE_NEW}\\) \\(OCPBUGS-53408`));
  });

  it('names the build made twice, both uids and OCPBUGS-58238', () => {
    const fact = eachBuildMadeOnce(recordUpgrade({ buildMadeTwice: true }), { pool: POOL, machineOSConfig: POOL });
    expect(fact.ok).to.equal(false);
    expect(fact.why).to.match(new RegExp(`^rendered config ${NEW} of pool ${POOL} was built 2 times by machineosbuild/b-new during the upgrade, expected once: machineosbuild/b-new \\(uid uid-2, Building at \\+0m10s\\); then machineosbuild/b-new \\(uid uid-3, made at \\+0m13s, Succeeded at \\+0m20s, image ${IMAGE_NEW}\\) \\(OCPBUGS-58238`));
  });

  it('cannot judge a recording without builds, and says why', () => {
    const recording = recordUpgrade();
    recording.timeline = recording.timeline.filter((i) => i.kind !== 'MachineOSBuild');
    expect(eachBuildMadeOnce(recording, { pool: POOL, machineOSConfig: POOL }).why).to.match(/holds no MachineOSBuild of MachineOSConfig ocp-e2e-15: the monitor did not follow MachineOSBuilds/);
  });

  it('finds a degraded node or failed build of the pool in the record, with its message, not a hop\'s render wait', () => {
    const recording = recordUpgrade();
    const from = recording.timeline[0]!.from;
    // a hop's render wait (RenderDegraded, and Degraded with it) is upstream's own moment, not the pool's failure
    const render = `Failed to render configuration for pool ${POOL}: Ignoring MC 00-worker generated by older version a (my version: b)`;
    recording.timeline.push({ locator: `MachineConfigPool/${POOL}`, kind: 'MachineConfigPool', name: POOL, condition: 'RenderDegraded', value: 'True', message: render, from });
    recording.timeline.push({ locator: `MachineConfigPool/${POOL}`, kind: 'MachineConfigPool', name: POOL, condition: 'Degraded', value: 'True', from });
    expect(poolNeverDegraded(recording, POOL)).to.include({ ok: true });
    recording.timeline.push({ locator: `MachineConfigPool/${POOL}`, kind: 'MachineConfigPool', name: POOL, condition: 'NodeDegraded', value: 'True', reason: '1 nodes are reporting degraded status on sync', message: 'Node worker-1 is reporting: failed to pull', from });
    expect(poolNeverDegraded(recording, POOL).why).to.equal(`mcp/${POOL} was NodeDegraded from +0m00s to the end of the recording of the upgrade (1 nodes are reporting degraded status on sync): "Node worker-1 is reporting: failed to pull"; expected an image-mode pool never to have a degraded node or a failed build through an upgrade`);
  });
});
