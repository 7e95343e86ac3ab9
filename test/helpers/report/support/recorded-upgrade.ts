/**
 * Recordings made by the real recorder (helpers/monitor/record.ts) for the report's tests: a fake watcher holds the
 * objects and feeds the recorder their changes at chosen moments, so the chart and the judges are tested on what the
 * recorder writes, never on hand-written intervals.
 */
import type { ClusterSnapshot, ObjectChange } from '../../../../helpers/cluster-watcher.js';
import { UpgradeRecorder, type WatchedChanges } from '../../../../helpers/monitor/record.js';
import type { UpgradeRecording } from '../../../../helpers/monitor/recording.js';
import type { ApiObject, ClusterOperator, ClusterVersion, MachineConfig, MachineConfigPool, Node } from '../../../../helpers/types.js';

export const T0 = Date.parse('2026-12-01T08:00:00.000Z');
export const TIME_FACTOR = 600;
/** Wall time of a cluster second since T0. */
export const at = (clusterSeconds: number): Date => new Date(T0 + (clusterSeconds * 1000) / TIME_FACTOR);

const cond = (type: string, status: string, message = '', reason = '', lastTransitionTime = '2026-12-01T08:00:00Z') => ({ type, status, message, reason, lastTransitionTime });

/** The cluster's clock (ISO) `clusterSeconds` after T0: what the API's timestamps say. */
export const clusterIso = (clusterSeconds: number): string => new Date(T0 + clusterSeconds * 1000).toISOString();

/** Holds the cluster's objects; `change` replaces one and tells the listeners, at a given wall time. */
export class FakeWatcher implements WatchedChanges {
  private readonly listeners = new Set<(change: ObjectChange) => void>();
  readonly snap: ClusterSnapshot = { operators: new Map(), pools: new Map(), nodes: new Map(), machineConfigs: new Map() };

  snapshot(): ClusterSnapshot {
    return { clusterVersion: this.snap.clusterVersion, operators: new Map(this.snap.operators), pools: new Map(this.snap.pools), nodes: new Map(this.snap.nodes), machineConfigs: new Map(this.snap.machineConfigs) };
  }
  onChange(listener: (change: ObjectChange) => void): void {
    this.listeners.add(listener);
  }
  offChange(listener: (change: ObjectChange) => void): void {
    this.listeners.delete(listener);
  }

  /** Puts the object in place without telling anyone (the state before recording starts). */
  set(kind: ObjectChange['kind'], given: ApiObject | Node): void {
    const object = given as ApiObject;
    const name = object.metadata.name!;
    if (kind === 'ClusterVersion') this.snap.clusterVersion = object as ClusterVersion;
    if (kind === 'ClusterOperator') this.snap.operators.set(name, object as ClusterOperator);
    if (kind === 'MachineConfigPool') this.snap.pools.set(name, object as MachineConfigPool);
    if (kind === 'Node') this.snap.nodes.set(name, object as Node);
    if (kind === 'MachineConfig') this.snap.machineConfigs.set(name, object as MachineConfig);
  }

  change(kind: ObjectChange['kind'], object: ApiObject | Node, when: Date): void {
    this.set(kind, object);
    for (const l of this.listeners) l({ kind, type: 'MODIFIED', object: object as ApiObject, at: when });
  }
}

export const clusterVersion = (o: { desired: string; head: 'Completed' | 'Partial'; version: string; progressing: boolean; completedAt?: string }): ClusterVersion =>
  ({
    metadata: { name: 'version' },
    status: {
      desired: { version: o.desired, image: `r/ocp/release:${o.desired}` },
      history: [{ state: o.head, version: o.version, image: `r/ocp/release:${o.version}`, ...(o.completedAt ? { completionTime: o.completedAt } : {}) }],
      conditions: [cond('Available', 'True'), cond('Failing', 'False'), cond('Progressing', o.progressing ? 'True' : 'False', o.progressing ? `Working towards ${o.desired}` : `Cluster version is ${o.version}`)],
    },
  }) as unknown as ClusterVersion;

export const machineConfigOperator = (o: { progressing: boolean; degraded?: { reason: string; message: string } }): ClusterOperator =>
  ({
    metadata: { name: 'machine-config' },
    status: {
      versions: [{ name: 'operator', version: '4.12.0' }],
      conditions: [
        cond('Available', 'True'),
        cond('Progressing', o.progressing ? 'True' : 'False'),
        o.degraded ? cond('Degraded', 'True', o.degraded.message, o.degraded.reason) : cond('Degraded', 'False'),
      ],
    },
  }) as unknown as ClusterOperator;

export const masterPool = (o: { target: string; rolledOut: string; updated: number; generation?: number; updatedAt?: string }): MachineConfigPool => {
  const done = o.updated === 3 && o.target === o.rolledOut;
  return {
    metadata: { name: 'master', generation: o.generation ?? 1 },
    spec: { configuration: { name: o.target }, nodeSelector: { matchLabels: { 'node-role.kubernetes.io/master': '' } } },
    status: {
      observedGeneration: o.generation ?? 1,
      configuration: { name: o.rolledOut },
      machineCount: 3,
      updatedMachineCount: o.updated,
      degradedMachineCount: 0,
      conditions: [cond('Updated', done ? 'True' : 'False', '', '', o.updatedAt), cond('Updating', done ? 'False' : 'True', '', '', o.updatedAt), cond('Degraded', 'False')],
    },
  } as unknown as MachineConfigPool;
};

export const renderedConfig = (name: string, release: string): MachineConfig =>
  ({ metadata: { name, annotations: { 'machineconfiguration.openshift.io/release-image-version': release } }, spec: {} }) as unknown as MachineConfig;

export const node = (name: string, o: { current: string; desired: string; state: string; ready?: boolean }): Node =>
  ({
    metadata: {
      name,
      annotations: {
        'machineconfiguration.openshift.io/currentConfig': o.current,
        'machineconfiguration.openshift.io/desiredConfig': o.desired,
        'machineconfiguration.openshift.io/state': o.state,
      },
    },
    status: { conditions: [cond('Ready', o.ready === false ? 'False' : 'True')] },
  }) as unknown as Node;

export const MISMATCH =
  'Unable to apply 4.12.1: error during syncRequiredMachineConfigPools: [timed out waiting for the condition, pool master has not progressed to latest configuration: osImageURL mismatch for master in rendered-master-b expected: x got: y, retrying]';

/**
 * The report's upgrade from 4.12.0 to 4.12.1 through the recorder: the operator Degraded from +1m00s (the osImageURL
 * mismatch from +10m00s) until +18m30s, master rolling from +2m00s to +15m00s. With `completesEarly`, ClusterVersion
 * reports Completed at +8m30s while master still rolls (the fault cvo-completes-early); otherwise at +20m00s.
 */
export function recordUpgrade(options: { completesEarly?: boolean; stopAt?: number } = {}): UpgradeRecording {
  const w = new FakeWatcher();
  w.set('ClusterVersion', clusterVersion({ desired: '4.12.0', head: 'Completed', version: '4.12.0', progressing: false }));
  w.set('ClusterOperator', machineConfigOperator({ progressing: false }));
  w.set('MachineConfig', renderedConfig('rendered-master-a', '4.12.0'));
  w.set('MachineConfigPool', masterPool({ target: 'rendered-master-a', rolledOut: 'rendered-master-a', updated: 3 }));
  w.set('Node', node('m0', { current: 'rendered-master-a', desired: 'rendered-master-a', state: 'Done' }));
  const recorder = new UpgradeRecorder(w, { timeFactor: TIME_FACTOR }, { image: 'r/ocp/release:4.12.1', version: '4.12.1' }, { now: () => at(0) });
  const completion = options.completesEarly ? 510 : 1200;
  const steps: Array<[number, () => void]> = [
    [30, () => w.change('ClusterVersion', clusterVersion({ desired: '4.12.1', head: 'Partial', version: '4.12.1', progressing: true }), at(30))],
    [60, () => w.change('ClusterOperator', machineConfigOperator({ progressing: true, degraded: { reason: 'RequiredPoolsFailed', message: 'required pool master is not ready' } }), at(60))],
    [120, () => w.change('MachineConfig', renderedConfig('rendered-master-b', '4.12.1'), at(120))],
    [120, () => w.change('MachineConfigPool', masterPool({ target: 'rendered-master-b', rolledOut: 'rendered-master-a', updated: 0, generation: 2 }), at(120))],
    [120, () => w.change('Node', node('m0', { current: 'rendered-master-a', desired: 'rendered-master-b', state: 'Working' }), at(120))],
    [300, () => w.change('Node', node('w0', { current: 'rendered-worker-a', desired: 'rendered-worker-a', state: 'Done' }), at(300))],
    [420, () => w.change('Node', node('m0', { current: 'rendered-master-b', desired: 'rendered-master-b', state: 'Done', ready: false }), at(420))],
    [600, () => w.change('ClusterOperator', machineConfigOperator({ progressing: true, degraded: { reason: 'RequiredPoolsFailed', message: MISMATCH } }), at(600))],
    [900, () => w.change('MachineConfigPool', masterPool({ target: 'rendered-master-b', rolledOut: 'rendered-master-b', updated: 3, generation: 2 }), at(900))],
    [1110, () => w.change('ClusterOperator', machineConfigOperator({ progressing: false }), at(1110))],
    [completion, () => w.change('ClusterVersion', clusterVersion({ desired: '4.12.1', head: 'Completed', version: '4.12.1', progressing: false }), at(completion))],
  ];
  for (const [, apply] of steps.sort((a, b) => a[0] - b[0])) apply();
  return recorder.stop(at(options.stopAt ?? 1200));
}
