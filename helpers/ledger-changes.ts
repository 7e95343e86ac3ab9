/**
 * The kinds of change a test makes, as data, and how each kind is undone: the one place that maps a change to its
 * undo. The ledger (ledger.ts) builds every registered undo here, for a change this process just made and for one a
 * checkpoint names (--phase post rebuilds what --phase pre left); the checkpoint's start checks ask it for the
 * commands that undo a change by hand. A new kind of change is a member of `Change` and a row of `KINDS`.
 */
import type { Engine } from '../lib/oci/engine.js';
import type { UndoAction } from './cleanup.js';
import type { Cluster } from './cluster.js';
import { waitForPools, type WaitContext } from './cluster-waits.js';
import { removeLocalLayeredImage } from './layered-image.js';
import { poolsOf } from './machineconfigs.js';
import { inheritingPools } from './facts/pool.js';
import { isSuiteCustomPool, removeCustomPools } from './plan/custom-pools.js';
import { waitForPoolOffImageMode } from './image-mode/rollout-waits.js';
import { pushedImagesOf, type PushedImages } from './image-mode/pushed-images.js';
import type { RegistryAccess } from './credentials.js';
import { recoverDegradedNodes } from './recovery.js';
import { CHECKPOINT_NAMESPACE_LABEL } from './types.js';
import type { KubeObject } from '../lib/kube/client.js';

/** A change a test made, said as data: what it is and where, never how to undo it (that is `KINDS`). */
export type Change =
  /** An override MachineConfig this run created for a pool. */
  | { kind: 'MachineConfig'; name: string; pool: string }
  /**
   * A layered image this process built and pushed: its local copies (tag and by-digest reference) are this
   * process's to remove; the pushed image stays in its repository (nodes boot from it; its expiry label ages it out).
   */
  | { kind: 'image'; tag: string; pullspec: string }
  /**
   * A split run's checkpoint ConfigMap, which --phase post took over: removed once none of the MachineConfigs it
   * names is left on the cluster (while one is, the checkpoint stays, so that nobody loses track of it).
   */
  | { kind: 'checkpoint'; namespace: string; name: string; machineConfigs: string[] }
  /** A Secret this run created (an image-mode push secret in openshift-machine-config-operator). */
  | { kind: 'Secret'; namespace: string; name: string }
  /** A MachineOSConfig this run put on a pool (on-cluster image mode): deleting it takes the pool back to the release image. */
  | { kind: 'MachineOSConfig'; name: string; pool: string }
  /** A custom pool a spec made of one worker node for itself (helpers/plan/custom-pools.ts). */
  | { kind: 'customPool'; name: string; node: string };

export type ChangeKind = Change['kind'];
export type ChangeOf<K extends ChangeKind> = Extract<Change, { kind: K }>;

/** One ledger entry as data: the changes one step made, all of one kind, undone together (oldest first). */
export interface LedgerRecord {
  id: number;
  changes: Change[];
}

/** What an undo needs of the session; read only when the undo runs. */
export interface UndoContext {
  readonly cluster: Cluster;
  readonly waits: WaitContext;
  readonly target: { reportsDir: string };
  engine(): Promise<Engine>;
  /** The run's registry credentials and the record of what the undo deleted of the images the MCO pushed (image mode). */
  readonly access?: RegistryAccess;
  readonly pushedImages?: PushedImages;
}

/** What undoing a group of changes is, in words: the step and, after it, how the cluster settles. */
export interface UndoText {
  description: string;
  byHand: string[];
  settle?: { description: string; byHand: string[] };
}

interface KindRule<C extends Change> {
  /**
   * Where the change lives: on the cluster, where a later phase of a split run can undo it (the checkpoint hands it
   * on), or in this process (its engine's images), which undoes it whatever the phase.
   */
  lives: 'cluster' | 'process';
  text(changes: C[]): UndoText;
  undo(changes: C[], ctx: UndoContext): Promise<void>;
  /** After the undo: bring the cluster back to a settled state (skipped on a throwaway target). */
  settle?(changes: C[], ctx: UndoContext): Promise<void>;
}

/** The override MachineConfigs of each pool: `{ worker: ['tc-…-worker'], master: ['tc-…-master'] }`. */
function namesByPool(changes: ChangeOf<'MachineConfig'>[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const c of changes) (out[c.pool] ??= []).push(c.name);
  return out;
}

const machineConfigs: KindRule<ChangeOf<'MachineConfig'>> = {
  lives: 'cluster',
  text: (changes) => {
    const names = changes.map((c) => c.name);
    const pools = poolsOf(changes);
    return {
      description: `delete MachineConfigs ${names.join(', ')}`,
      byHand: [`oc delete machineconfig ${names.join(' ')}`],
      settle: {
        description: `wait until pools ${pools.join(', ')} settle without them`,
        byHand: [`oc get mcp ${pools.join(' ')} -w   # until UPDATED=True, UPDATING=False, DEGRADED=False on every pool`],
      },
    };
  },
  undo: async (changes, ctx) => {
    for (const c of changes) await ctx.cluster.deleteMachineConfig(c.name);
  },
  // A node that could not reach the override's config stays degraded after its deletion (MCO will not move it):
  // point it back first, then the pools can settle.
  settle: async (changes, ctx) => {
    const byPool = namesByPool(changes);
    // the pools that took the overrides with their roles (an infra pool takes worker's) go back with them
    const inheritors = inheritingPools(poolsOf(changes), [...ctx.waits.watcher.snapshot().pools.values()].filter((p) => !isSuiteCustomPool(p)));
    for (const [pool, role] of inheritors) byPool[pool] = byPool[role]!;
    const pools = [...poolsOf(changes), ...inheritors.keys()];
    let recovered = 0;
    for (const pool of pools) {
      const nodes = await recoverDegradedNodes(ctx.cluster, ctx.waits, pool, byPool[pool]!);
      if (nodes.length) console.log(`    recovered degraded nodes: ${nodes.join(', ')}`);
      recovered += nodes.length;
    }
    // A node pointed back keeps its Degraded mark until its daemon's attempt at the old config has failed once more
    // (the pull's retries, the queue's backoff): give that an hour of cluster time before calling the pool stuck.
    const grace = recovered ? { degradedGraceClusterMinutes: 60 } : {};
    await waitForPools(ctx.waits, { pools, rendered: Object.fromEntries(pools.map((p) => [p, { without: byPool[p] }])), ...grace });
  },
};

const images: KindRule<ChangeOf<'image'>> = {
  lives: 'process',
  text: (changes) => ({
    description: `remove the local copies of ${changes.map((c) => c.tag).join(', ')}`,
    byHand: changes.map((c) => `docker rmi ${c.tag} ${c.pullspec}   # or podman rmi`),
  }),
  undo: async (changes, ctx) => {
    const engine = await ctx.engine();
    for (const c of changes) await removeLocalLayeredImage(engine, c);
  },
};

const checkpoints: KindRule<ChangeOf<'checkpoint'>> = {
  lives: 'cluster',
  text: (changes) => ({
    description: `remove the checkpoint ${changes.map(where).join(', ')}`,
    byHand: changes.map((c) => `oc delete ${where(c)}`),
  }),
  undo: async (changes, ctx) => {
    for (const c of changes) {
      const names = new Set(c.machineConfigs);
      const left = (await ctx.cluster.listMachineConfigs()).map((mc) => mc.metadata.name).filter((n) => n && names.has(n));
      if (left.length) throw new Error(`kept the checkpoint ${where(c)}: its MachineConfigs ${left.join(', ')} are still on the cluster`);
      await ctx.cluster.deleteConfigMap(c.namespace, c.name);
      console.log(`    checkpoint ${where(c)} removed (what post went on from stays in ${ctx.target.reportsDir}/checkpoints/)`);
      await removeNamespaceWithoutCheckpoints(ctx.cluster, c.namespace);
    }
  },
};

/**
 * The suite's namespace exists only to hold checkpoints: with the last one gone it goes too, so a cluster is left as
 * it was found. Anything else in it (a person's ConfigMap) keeps it.
 */
export async function removeNamespaceWithoutCheckpoints(cluster: Cluster, namespace: string): Promise<void> {
  // Only a namespace the checkpoint store made goes: one made by deploy/ (or `cluster up --service-account`) holds the
  // ServiceAccount the suite runs as, and deleting it would revoke the run's own token mid-run.
  const ns = await cluster.client.get<KubeObject>('Namespace', namespace);
  if (ns?.metadata.labels?.[CHECKPOINT_NAMESPACE_LABEL.key] !== CHECKPOINT_NAMESPACE_LABEL.value) return;
  if ((await cluster.listConfigMaps(namespace)).some((cm) => !SYSTEM_CONFIGMAPS.has(cm.metadata?.name ?? ''))) return;
  if (await cluster.deleteNamespace(namespace)) console.log(`    namespace ${namespace} removed (it held no other checkpoint)`);
}

/** What the cluster itself puts in every namespace. */
const SYSTEM_CONFIGMAPS = new Set(['kube-root-ca.crt', 'openshift-service-ca.crt']);

function where(c: ChangeOf<'checkpoint'>): string {
  return `configmap/${c.name} -n ${c.namespace}`;
}

const secrets: KindRule<ChangeOf<'Secret'>> = {
  lives: 'cluster',
  text: (changes) => ({
    description: `delete Secrets ${changes.map((c) => `${c.namespace}/${c.name}`).join(', ')}`,
    byHand: changes.map((c) => `oc delete secret ${c.name} -n ${c.namespace}`),
  }),
  undo: async (changes, ctx) => {
    for (const c of changes) await ctx.cluster.client.delete('Secret', c.name, c.namespace);
  },
};

// Deleting a MachineOSConfig is the documented way out of image mode: the MCO rolls the pool's nodes back to the
// rendered config's OS image and removes their desiredImage/currentImage annotations. Its builds go with it, so the
// images they pushed are listed first and deleted after it (the nodes leave them; none pulls them again).
const machineOSConfigs: KindRule<ChangeOf<'MachineOSConfig'>> = {
  lives: 'cluster',
  text: (changes) => {
    const pools = changes.map((c) => c.pool);
    return {
      description: `delete MachineOSConfigs ${changes.map((c) => c.name).join(', ')}`,
      byHand: [
        `oc get machineosbuild -o jsonpath='{range .items[*]}{.spec.machineOSConfig.name} {.status.digestedImagePushSpec}{"\\n"}{end}'   # the images to delete from their registry, before:`,
        `oc delete machineosconfig ${changes.map((c) => c.name).join(' ')}`,
      ],
      settle: {
        description: `wait until pools ${pools.join(', ')} are back on the release image (no desiredImage/currentImage on their nodes, pool Updated)`,
        byHand: [`oc get mcp ${pools.join(' ')} -w   # until UPDATED=True; then: oc get nodes -o yaml | grep -c Image:   # no desiredImage/currentImage annotation left`],
      },
    };
  },
  undo: async (changes, ctx) => {
    for (const c of changes) {
      const pushed = await pushedImagesOf(ctx.cluster, c.name);
      await ctx.cluster.client.delete('MachineOSConfig', c.name);
      if (ctx.pushedImages && ctx.access) await ctx.pushedImages.remove(ctx.cluster, ctx.access, pushed, (line) => console.log(`    ${line}`));
    }
  },
  settle: async (changes, ctx) => {
    for (const c of changes) await waitForPoolOffImageMode(ctx.waits, c.pool);
  },
};

const customPools: KindRule<ChangeOf<'customPool'>> = {
  lives: 'cluster',
  text: (changes) => ({
    description: `move node ${changes.map((c) => c.node).join(', ')} back to pool worker and delete custom pools ${changes.map((c) => c.name).join(', ')}`,
    byHand: [
      ...changes.map((c) => `oc label node ${c.node} node-role.kubernetes.io/${c.name}-`),
      'oc get mcp worker -w   # until UPDATED=True',
      `oc delete mcp ${changes.map((c) => c.name).join(' ')}`,
    ],
  }),
  undo: (changes, ctx) => removeCustomPools(ctx.cluster, ctx.waits, changes.map((c) => ({ name: c.name, node: c.node })), (l) => console.log(`    ${l}`)),
};

const KINDS: { [K in ChangeKind]: KindRule<ChangeOf<K>> } = {
  MachineConfig: machineConfigs,
  image: images,
  checkpoint: checkpoints,
  Secret: secrets,
  MachineOSConfig: machineOSConfigs,
  customPool: customPools,
};

function ruleOf<C extends Change>(changes: C[]): KindRule<C> {
  const kind = changes[0]?.kind;
  if (!kind) throw new Error('a ledger entry holds at least one change');
  if (changes.some((c) => c.kind !== kind)) throw new Error(`a ledger entry holds changes of one kind, not ${[...new Set(changes.map((c) => c.kind))].join(' and ')}`);
  return KINDS[kind] as unknown as KindRule<C>;
}

/** Where a change lives: on the cluster (a later phase can undo it) or in this process. */
export function livesOn(change: Change): 'cluster' | 'process' {
  return KINDS[change.kind].lives;
}

/** The words of an undo, and its commands by hand (a checkpoint's start checks print them). */
export function undoText(changes: Change[]): UndoText {
  return ruleOf(changes).text(changes);
}

/**
 * The undo of a group of changes. `changes` is read when the undo runs or is described, so a step that adds to its
 * group after registering it (one MachineConfig after another) is undone whole.
 */
export function undoOf(changes: Change[], ctx: UndoContext): UndoAction {
  const rule = (): KindRule<Change> => ruleOf(changes);
  const settle = rule().settle;
  return {
    get description() {
      return rule().text(changes).description;
    },
    get byHand() {
      return rule().text(changes).byHand;
    },
    undo: () => rule().undo(changes, ctx),
    settle: settle && {
      get description() {
        return rule().text(changes).settle?.description ?? 'settle';
      },
      get byHand() {
        return rule().text(changes).settle?.byHand ?? [];
      },
      run: () => settle(changes, ctx),
    },
  };
}
