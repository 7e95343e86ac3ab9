/**
 * MachineConfigNodes (machineconfiguration.openshift.io/v1, 4.19 and later): one per node, named after it, whose spec
 * says the node's pool and desired config and whose status walks through the update's steps as conditions. Upstream
 * (release-4.20 at afed09939, the same in 4.21 and 4.22) several writers share it: the operator creates it for every
 * node (pkg/operator/sync.go `syncMachineConfigNodes`, then `GenerateAndApplyMachineConfigNodeSpec`), the node
 * controller moves spec.configVersion.desired when it points the node at a config
 * (pkg/controller/node/node_controller.go, `UpdateMachineConfigNodeSpecDesiredAnnotation`), and the daemon
 * (pkg/daemon/daemon.go, update.go, drain.go) and the drain controller (pkg/controller/drain/drain_controller.go)
 * report each step through pkg/upgrademonitor/upgrade_monitor.go `GenerateAndApplyMachineConfigNodes`.
 *
 * Here one small controller plays all of them from what the node shows: its MCO annotations (desiredConfig,
 * currentConfig, state, reason, desiredDrain, lastAppliedDrain), its Ready condition and boot id, and its pool. Each
 * step the node reaches stands for the upstream calls made up to it (`callsOf`), folded with upstream's own rules
 * (`applyCall`: an unchanged parent condition writes nothing, `Updated` resets every other condition to False with
 * "Action during update to …", the first write creates every condition with "This node has not yet entered the …
 * phase") into one status write. A node whose facts did not change costs a string comparison; nothing is written
 * when the folded status equals the stored one.
 *
 * Which release's code runs it: the one the machine-config operator runs (its Deployment's RELEASE_VERSION), so a
 * 4.18 cluster upgraded to 4.19 gets its MachineConfigNodes once the 4.19 operator is deployed.
 */
import type { V1Node } from '@kubernetes/client-node';
import { ANN, MCO_DEPLOYMENT_CONFIGMAP, MCO_NAMESPACE } from '../constants.js';
import type { Controller, ControllerContext } from '../context.js';
import type { KubeObject } from '../../lib/kube/client.js';
import type { Informer } from '../../lib/kube/informer.js';
import { WorkQueue } from '../kube/workqueue.js';
import { poolForNode } from '../mco/node-status.js';
import type { MachineConfig, MachineConfigPool } from '../mco/types.js';
import { mcoAt } from '../profiles/profile.js';
import { releasePath } from '../releases/release-set.js';
import { changedFilePaths, configDiff, nodeConfigOf, postConfigChangeAction } from './node-config.js';

type Node = V1Node & KubeObject;
type ConditionStatus = 'True' | 'False' | 'Unknown';

/** upgrademonitor.NotYetSet: the desired config or pool before one is known. */
export const NOT_YET_SET = 'not-yet-set';

export interface McnCondition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  lastTransitionTime: string;
}

export interface McnStatus {
  conditions?: McnCondition[];
  configVersion?: { current?: string; desired: string };
  observedGeneration?: number;
}

export interface MachineConfigNodeObject extends KubeObject {
  spec?: { node: { name: string }; pool: { name: string }; configVersion: { desired: string } };
  status?: McnStatus;
}

/** `allConditionTypes` of generateAndApplyMachineConfigNodes, PinnedImages' singletons last (that gate is on from 4.19). */
export const MCN_CONDITION_TYPES = [
  'UpdatePrepared',
  'UpdateExecuted',
  'UpdatePostActionComplete',
  'UpdateComplete',
  'Resumed',
  'Drained',
  'AppliedFilesAndOS',
  'Cordoned',
  'RebootedNode',
  'Updated',
  'Uncordoned',
  'NodeDegraded',
  'PinnedImageSetsDegraded',
  'PinnedImageSetsProgressing',
] as const;

interface Step {
  type: string;
  reason: string;
  message: string;
}

/** One GenerateAndApplyMachineConfigNodes call: a parent condition and maybe a child, with their statuses. */
export interface McnCall {
  parent: Step;
  parentStatus: ConditionStatus;
  child?: Step;
  childStatus?: ConditionStatus;
}

/** What a call reads besides the MCN: the node's annotations then, and the MCN's spec.configVersion.desired. */
export interface CallContext {
  desiredAnnotation: string;
  currentAnnotation: string;
  specDesired: string;
  now: string;
}

/**
 * generateAndApplyMachineConfigNodes on a status: the status it writes, or undefined where upstream returns without
 * writing (the parent condition already has that status and message).
 */
export function applyCall(status: McnStatus, call: McnCall, at: CallContext): McnStatus | undefined {
  const condition = (step: Step, s: ConditionStatus): McnCondition => ({ type: step.type, status: s, reason: step.reason, message: step.message, lastTransitionTime: at.now });
  const parent = condition(call.parent, call.parentStatus);
  const child = call.child ? condition(call.child, call.childStatus ?? 'False') : undefined;
  const reset = parent.type === 'Updated';
  let conditions: McnCondition[];
  if (!status.conditions) {
    conditions = child ? [parent, child] : [parent];
    for (const type of MCN_CONDITION_TYPES) {
      if (!conditions.some((c) => c.type === type)) {
        conditions.push({ type, status: 'False', reason: 'NotYetOccurred', message: `This node has not yet entered the ${type} phase`, lastTransitionTime: at.now });
      }
    }
  } else {
    conditions = [];
    let foundParent = false;
    let foundChild = false;
    for (const c of status.conditions) {
      if (c.type === 'Updated' && c.status === 'True' && c.type !== parent.type) {
        conditions.push({ type: 'Updated', status: 'False', reason: 'Updated', message: 'This node is not updated, sensed disruption via a manual update.', lastTransitionTime: at.now });
      } else if (child && c.type === child.type) {
        foundChild = true;
        conditions.push(child);
      } else if (c.type === parent.type) {
        foundParent = true;
        if (c.status === parent.status && c.message === parent.message) return undefined;
        conditions.push(parent);
      } else if (c.status !== 'False' && reset) {
        conditions.push({ ...c, status: 'False', message: `Action during update to ${at.specDesired}: ${c.message}`, lastTransitionTime: at.now });
      } else {
        conditions.push(c);
      }
    }
    if (child && !foundChild) conditions.push(child);
    if (!foundParent) conditions.push(parent);
  }
  const desiredKnown = parent.type === 'UpdatePrepared' ? parent.status === 'True' : at.desiredAnnotation !== '';
  const configVersion = { ...status.configVersion, desired: (desiredKnown && at.desiredAnnotation) || NOT_YET_SET };
  if (at.currentAnnotation) configVersion.current = at.currentAnnotation;
  return { ...status, conditions, configVersion };
}

/** Where a node is in an update, as its annotations, Ready condition and boot id show it. */
export type Phase = 'none' | 'pending' | 'settled' | 'draining' | 'drained' | 'rebooting' | 'booted' | 'rebootless' | 'degraded' | 'unreconcilable';

/** The phases of an update, in order: a step folds the calls of every phase after the last one seen up to its own. */
const REBOOT_PATH: readonly Phase[] = ['draining', 'drained', 'rebooting', 'booted', 'settled'];

interface NodeFacts {
  name: string;
  desired: string;
  current: string;
  state: string;
  reason: string;
  desiredDrain: string;
  lastAppliedDrain: string;
  ready: string;
  bootId: string;
  unschedulable: boolean;
}

function factsOf(node: Node): NodeFacts {
  const a = node.metadata?.annotations ?? {};
  return {
    name: node.metadata!.name!,
    desired: a[ANN.desiredConfig] ?? '',
    current: a[ANN.currentConfig] ?? '',
    state: a[ANN.state] ?? '',
    reason: a[ANN.reason] ?? '',
    desiredDrain: a[ANN.desiredDrain] ?? '',
    lastAppliedDrain: a[ANN.lastAppliedDrain] ?? '',
    ready: node.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? '',
    bootId: node.status?.nodeInfo?.bootID ?? '',
    unschedulable: node.spec?.unschedulable === true,
  };
}

/** The phase of a node; `bootIdAtStart` is its boot id when its daemon began the update to `desired`. */
export function phaseOf(f: NodeFacts, bootIdAtStart: string | undefined): Phase {
  if (!f.desired) return 'none';
  if (f.state === 'Degraded') return 'degraded';
  if (f.state === 'Unreconcilable') return 'unreconcilable';
  if (f.state !== 'Working') return f.current === f.desired ? 'settled' : 'pending';
  const drain = `drain-${f.desired}`;
  if (f.desiredDrain !== drain) return 'rebootless';
  if (f.lastAppliedDrain !== drain) return 'draining';
  if (f.ready !== 'True') return 'rebooting';
  return bootIdAtStart !== undefined && f.bootId !== bootIdAtStart ? 'booted' : 'drained';
}

/** What the update changes, for the daemon's texts (OS and SSH keys) and its action after a rebootless update. */
interface ChangeSummary {
  os: boolean;
  sshKeys: boolean;
  reloadsCrio: boolean;
}

const NO_CHANGE: ChangeSummary = { os: true, sshKeys: false, reloadsCrio: false };

/**
 * How a node came to be settled in its config: seen so for the first time (its daemon started there), after an update
 * that rebooted it (the new daemon's first sync, then the drain controller's uncordon), after one that did not.
 */
export type Arrival = 'first-sight' | 'rebooted' | 'rebootless' | 'other';

/**
 * The upstream calls that bring a node into `phase`, in their order. `from` is the config the update started from:
 * the daemon that starts after the reboot names the node's currentConfig as it read it, still that one.
 */
export function callsOf(phase: Phase, f: NodeFacts, change: ChangeSummary, arrival: Arrival = 'other', from = f.current): McnCall[] {
  const node = f.name;
  const needsUpdate: McnCall = { parent: { type: 'Updated', reason: 'Updated', message: `Node ${node} needs an update` }, parentStatus: 'False' };
  const prepared = (drain: boolean): McnCall => ({
    // update.go: `actions` is only filled on first boot, so the list prints empty
    parent: { type: 'UpdatePrepared', reason: 'UpdatePrepared', message: `Update Compatible. Post Cfg Actions: [] Drain Required: ${drain}` },
    parentStatus: 'True',
  });
  const executed = (reason: string, message: string, childMessage: string, parentStatus: ConditionStatus, childStatus: ConditionStatus): McnCall => ({
    parent: { type: 'UpdateExecuted', reason, message },
    parentStatus,
    child: { type: reason, reason: `UpdateExecuted${reason}`, message: childMessage },
    childStatus,
  });
  const will = change.os ? '' : 'not';
  const ssh = change.sshKeys ? '' : 'not';
  const applying = executed('AppliedFilesAndOS', 'Updating the Files and OS on disk as a part of the in progress phase', `Applying files and new OS config to node. OS will ${will} need an update. SSH Keys will ${ssh} need an update`, 'Unknown', 'Unknown');
  const applied = executed('AppliedFilesAndOS', 'Updated the Files and OS on disk as a part of the in progress phase', `Applied files and new OS config to node. OS did ${will} need an update. SSH Keys did ${ssh} need an update`, 'True', 'True');
  const succeeded: McnCall = { parent: { type: 'NodeDegraded', reason: 'NodeDegraded', message: `Node ${node} upgrade succeeded` }, parentStatus: 'False' };
  const degraded: McnCall = { parent: { type: 'NodeDegraded', reason: 'NodeDegraded', message: `Node ${node} upgrade failure. ${f.reason}` }, parentStatus: 'True' };
  const resumedApplying: McnCall = { parent: { type: 'Resumed', reason: 'Resumed', message: `In desired config ${f.desired}. Resumed normal operations. Applying proper annotations.` }, parentStatus: 'True' };
  // the drain controller words the node as its lister had it before the uncordon
  const uncordoned: McnCall = {
    parent: { type: 'UpdateComplete', reason: 'Uncordoned', message: 'Uncordoned Node as part of completing upgrade phase' },
    parentStatus: 'True',
    child: { type: 'Uncordoned', reason: 'UpdateCompleteUncordoned', message: 'UnCordoned node. The node is reporting Unschedulable = true' },
    childStatus: 'True',
  };
  const resumedAtBoot = (config: string): McnCall => ({ parent: { type: 'Resumed', reason: 'Resumed', message: `In desired config ${config}. Resumed normal operations.` }, parentStatus: 'True' });
  const updated: McnCall = { parent: { type: 'Updated', reason: 'Updated', message: `Node ${node} Updated` }, parentStatus: 'True' };
  switch (phase) {
    case 'draining':
      return [
        needsUpdate,
        prepared(true),
        // the drain controller words the node as its lister had it before the cordon
        executed('Cordoned', 'Cordoned Node as part of update executed phase', 'Cordoned node. The node is reporting Unschedulable = false', 'Unknown', 'True'),
        executed('Drained', 'Draining Node as part of update executed phase', `Draining node. The drain will not be complete until desired drainer ${f.desiredDrain} matches current drainer ${f.lastAppliedDrain}`, 'Unknown', 'Unknown'),
      ];
    case 'drained':
      return [executed('Drained', 'Drained Node as part of update executed phase', `Drained node. The drain is complete as the desired drainer matches current drainer: ${f.desiredDrain}`, 'Unknown', 'True'), applying];
    case 'rebooting':
      return [applied, { parent: { type: 'RebootedNode', reason: 'RebootedNode', message: 'Upgrade requires a reboot.' }, parentStatus: 'Unknown' }, succeeded];
    case 'booted':
      return [{ parent: { type: 'RebootedNode', reason: 'RebootedNode', message: 'Node has rebooted' }, parentStatus: 'True' }, resumedApplying];
    case 'rebootless':
      return [needsUpdate, prepared(false), executed('Drained', 'Node Drain Not required for this update.', 'Node Drain Not required for this update.', 'Unknown', 'False'), applying];
    case 'degraded':
      return [degraded];
    case 'unreconcilable': {
      const prefix = `can't reconcile config ${f.current} with ${f.desired}: `;
      const err = f.reason.startsWith(prefix) ? f.reason.slice(prefix.length) : f.reason;
      return [
        needsUpdate,
        { parent: { type: 'UpdatePrepared', reason: 'UpdatePrepared', message: `Update Failed compatibility validation. MachineConfigs ${f.current} and ${f.desired} are not compatible. Err: ${err}` }, parentStatus: 'Unknown' },
        degraded,
      ];
    }
    case 'settled':
      switch (arrival) {
        case 'first-sight':
          return [resumedAtBoot(f.current), updated];
        case 'rebooted':
          return [uncordoned, resumedAtBoot(from), updated];
        case 'rebootless': {
          const postAction: McnCall = change.reloadsCrio
            ? { parent: { type: 'UpdatePostActionComplete', reason: 'UpdatePostActionComplete', message: 'Node has reloaded service crio' }, parentStatus: 'True' }
            : { parent: { type: 'UpdatePostActionComplete', reason: 'None', message: 'Changes do not require a reboot' }, parentStatus: 'True' };
          return [applied, postAction, succeeded, resumedApplying, uncordoned, updated];
        }
        default:
          return [updated];
      }
    default:
      return [];
  }
}

/** What the controller remembers of a node between two of its changes. */
interface NodeRecord {
  /** The facts last handled: the same facts again are no work. */
  key: string;
  phase: Phase;
  /** The update under way: its config, the one it started from, and the node's boot id then. */
  update?: { desired: string; from: string; bootId: string };
  /** The MCN as last written or read (read once per node when the process starts: it is the only writer after). */
  mcn?: MachineConfigNodeObject;
}

export class MachineConfigNodes implements Controller {
  private nodes!: Informer<Node>;
  private pools!: Informer<MachineConfigPool & KubeObject>;
  private configMaps!: Informer<KubeObject & { data?: Record<string, string> }>;
  private readonly records = new Map<string, NodeRecord>();
  private readonly changes = new Map<string, ChangeSummary>();
  private readonly queue: WorkQueue;
  private enabled = false;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = new WorkQueue((name) => this.sync(name), { name: 'machine-config-nodes', signal: ctx.signal, clock: ctx.clock, log: (l) => ctx.log('mcn', l) });
  }

  /** Whether any release of the profile has MachineConfigNodes: else the controller watches nothing and does nothing. */
  private get ever(): boolean {
    const { profile } = this.ctx;
    return releasePath(profile.releases).some((r) => mcoAt(profile, r.version).daemon.machineConfigNodes);
  }

  setup(): void {
    if (!this.ever) return;
    this.nodes = this.ctx.informers.for<Node>('Node');
    this.pools = this.ctx.informers.for<MachineConfigPool & KubeObject>('MachineConfigPool');
    this.configMaps = this.ctx.informers.for('ConfigMap', MCO_NAMESPACE);
    this.nodes.onChange((type, node) => {
      if (type === 'delete') void this.removed(node.metadata!.name!);
      else this.consider(node);
    });
    // a pool's selector decides a node's pool: look at every node again (each costs a comparison unless it moved)
    this.pools.onChange(() => this.considerAll());
    this.configMaps.onChange((_t, cm) => {
      if (cm.metadata.name === MCO_DEPLOYMENT_CONFIGMAP) this.considerAll();
    });
  }

  start(): void {
    if (!this.ever) return;
    this.considerAll();
    this.queue.start();
  }

  async stop(): Promise<void> {
    await this.queue.idle();
  }

  /** Whether the operator's release has MachineConfigNodes. */
  private switchOn(): boolean {
    const version = this.configMaps.get(MCO_DEPLOYMENT_CONFIGMAP)?.data?.RELEASE_VERSION ?? this.ctx.profile.releases.current.version;
    return mcoAt(this.ctx.profile, version).daemon.machineConfigNodes;
  }

  private considerAll(): void {
    this.enabled = this.switchOn();
    if (!this.enabled) return;
    for (const node of this.nodes.list()) this.consider(node);
  }

  private consider(node: Node): void {
    if (!this.enabled) return;
    const name = node.metadata!.name!;
    if (this.records.get(name)?.key !== this.keyOf(node)) this.queue.add(name);
  }

  private keyOf(node: Node): string {
    const f = factsOf(node);
    return [f.desired, f.current, f.state, f.reason, f.desiredDrain, f.lastAppliedDrain, f.ready, f.bootId, this.poolOf(node)].join('\u0000');
  }

  private poolOf(node: Node): string {
    try {
      return poolForNode(node, this.pools.list())?.metadata.name ?? NOT_YET_SET;
    } catch {
      return NOT_YET_SET;
    }
  }

  private async removed(name: string): Promise<void> {
    const known = this.records.get(name)?.mcn;
    this.records.delete(name);
    if (!this.enabled || !known) return;
    // syncMachineConfigNodes: "Node %s has been removed, deleting associated MCN" (the owner reference would too)
    await this.ctx.client.delete('MachineConfigNode', name).catch(() => undefined);
  }

  private async sync(name: string): Promise<void> {
    const node = this.nodes.get(name);
    if (!node || !this.enabled) return;
    const key = this.keyOf(node);
    const record = this.records.get(name);
    if (record?.key === key) return;
    const f = factsOf(node);
    const pool = this.poolOf(node);
    const mcn = await this.ensureSpec(node, f, pool, record?.mcn);

    let update = record?.update;
    const starting = f.state === 'Working' && f.desired && f.desired !== f.current && update?.desired !== f.desired;
    if (starting) update = { desired: f.desired, from: f.current, bootId: f.bootId };
    const phase = phaseOf(f, update?.desired === f.desired ? update.bootId : undefined);
    const calls = await this.callsFor(phase, record?.phase, f, update);

    let status: McnStatus = mcn.status ?? {};
    let changed = false;
    const at: CallContext = { desiredAnnotation: f.desired, currentAnnotation: f.current, specDesired: mcn.spec?.configVersion.desired ?? NOT_YET_SET, now: this.ctx.clock.timestamp() };
    for (const call of calls) {
      const next = applyCall(status, call, at);
      if (next) {
        status = next;
        changed = true;
      }
    }
    let written = mcn;
    if (changed) {
      written = await this.ctx.client.patchStatus<MachineConfigNodeObject>('MachineConfigNode', name, { ...status, observedGeneration: (mcn.metadata.generation ?? 1) + 1 });
    }
    if (phase === 'settled' || phase === 'pending') update = undefined;
    this.records.set(name, { key, phase, update, mcn: written });
  }

  /** The calls of every phase after `last` up to `phase` on the update's path, or `phase`'s own when none was seen. */
  private async callsFor(phase: Phase, last: Phase | undefined, f: NodeFacts, update: NodeRecord['update']): Promise<McnCall[]> {
    const change = update ? await this.changeOf(update.from, update.desired) : NO_CHANGE;
    const from = update?.from;
    if (phase === 'settled') {
      if (last === undefined) return callsOf('settled', f, change, 'first-sight');
      if (last === 'rebootless') return callsOf('settled', f, change, 'rebootless');
      if (REBOOT_PATH.includes(last) && last !== 'settled') {
        return REBOOT_PATH.slice(REBOOT_PATH.indexOf(last) + 1).flatMap((p) => callsOf(p, f, change, 'rebooted', from));
      }
      return callsOf('settled', f, change);
    }
    // a retry after a failure finds the drain done and says nothing of it (drain.go performDrain)
    if (phase === 'drained' && last === 'degraded') return callsOf('drained', f, change).slice(1);
    const at = REBOOT_PATH.indexOf(phase);
    const was = last === undefined ? -1 : REBOOT_PATH.indexOf(last);
    if (at > 0 && was >= 0 && was < at && last !== 'settled') return REBOOT_PATH.slice(was + 1, at + 1).flatMap((p) => callsOf(p, f, change));
    return callsOf(phase, f, change);
  }

  /** What going from one rendered config to another changes (read once per pair: rendered configs do not change). */
  private async changeOf(from: string, to: string): Promise<ChangeSummary> {
    const key = `${from}\u0000${to}`;
    const known = this.changes.get(key);
    if (known) return known;
    const [a, b] = await Promise.all([from ? this.ctx.client.get<MachineConfig & KubeObject>('MachineConfig', from) : undefined, this.ctx.client.get<MachineConfig & KubeObject>('MachineConfig', to)]);
    let summary = NO_CHANGE;
    if (b) {
      try {
        const before = nodeConfigOf(a);
        const after = nodeConfigOf(b);
        const diff = configDiff(before, after);
        summary = { os: diff.osUpdate || diff.extensions || diff.kernelType, sshKeys: diff.passwd, reloadsCrio: postConfigChangeAction(diff, changedFilePaths(before, after)) === 'reload crio' };
      } catch {
        // a config the daemon cannot read fails its update; the texts then do not matter
      }
    }
    this.changes.set(key, summary);
    return summary;
  }

  /**
   * The MCN with the spec the operator and node controller give it: created for a node without one (the operator's
   * create and GenerateAndApplyMachineConfigNodeSpec in one), its pool and desired config kept up to date.
   */
  private async ensureSpec(node: Node, f: NodeFacts, pool: string, mcn: MachineConfigNodeObject | undefined): Promise<MachineConfigNodeObject> {
    const spec = { node: { name: f.name }, pool: { name: pool }, configVersion: { desired: f.desired || NOT_YET_SET } };
    if (!mcn) {
      const existing = await this.ctx.client.get<MachineConfigNodeObject>('MachineConfigNode', f.name);
      if (existing) mcn = existing;
      else {
        return this.ctx.client.create<MachineConfigNodeObject>('MachineConfigNode', {
          apiVersion: 'machineconfiguration.openshift.io/v1',
          kind: 'MachineConfigNode',
          metadata: { name: f.name, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: f.name, uid: node.metadata!.uid! }] },
          spec,
        });
      }
    }
    if (mcn.spec?.pool.name === spec.pool.name && mcn.spec?.configVersion.desired === spec.configVersion.desired && mcn.spec?.node.name === f.name) return mcn;
    return this.ctx.client.patch<MachineConfigNodeObject>('MachineConfigNode', f.name, { spec });
  }
}
