/**
 * One upgrade shared by many specs: which pool each spec's roles use, so that no spec's override lands on a pool
 * another spec judges differently. The MCO merges a pool's MachineConfigs in name order, so two specs overriding one
 * pool with different images would silently leave one of them judging the other's image.
 *
 * Each upgrade spec declares, per role it uses, the OS image that pool must run through the upgrade (`release`: no
 * override; `layered`: the spec's own layered image; `suite`: the suite's layered image of the cluster's release, one
 * image every spec that asks for it shares, helpers/flows.ts suiteLayeredOsImage) and how strict it is about the pool:
 *  - `own`: the spec is about that very pool (the report's bug is in the master pool): it gets the real pool or the
 *    plan is refused;
 *  - `alone`: the spec judges the pool after removing its own override, so no other spec may share the pool.
 * Everything else may go to a custom pool made of one worker node (what the MCO's own e2e tests do to keep changes
 * apart), or share a pool whose image is the same (`release` pools are shared, and `suite` ones; a `layered` image is
 * one spec's own). A cluster without workers for every pool takes the specs in run order while they fit and leaves the
 * others over, each named with why before any cluster time (they need another cluster).
 * Pure: the caller creates the custom pools the plan names (custom-pools.ts).
 */
export type PoolRole = 'master' | 'worker';
export const POOL_ROLES: readonly PoolRole[] = ['master', 'worker'];

export interface PoolNeed {
  /**
   * What the pool runs through the upgrade: the release's OS image, the spec's own layered image, or the suite's
   * layered image of the release (the same image for every spec that asks for it, so they may share a pool).
   */
  image: 'release' | 'layered' | 'suite';
  /** The spec is about this very pool: only the real pool of the role will do. */
  own?: boolean;
  /** The spec removes its override and judges the pool after: nobody else's override may be on it. */
  alone?: boolean;
  /**
   * The spec puts another image on the pool after the upgrade (a later override that wins by name): the specs after
   * it in run order judge after it, so none of them may share the pool, and it joins a pool only after all its users.
   */
  changesAfterUpgrade?: boolean;
  /**
   * What the spec's MachineConfigs put on the pool besides the image, as `<field>:<value>` (`extension:kernel-devel`,
   * `kernelType:realtime`): specs whose settings the MCO refuses to render together (REFUSED_TOGETHER) never share a pool.
   */
  settings?: string[];
}

/**
 * Settings the MCO's render controller refuses in one pool's merged config, so a pool holding both stays on its old
 * rendered config with the pool RenderDegraded. Upstream: machine-config-operator pkg/controller/common/helpers.go,
 * MergeMachineConfigs (release-4.13 a57ca2912, unchanged since): kernel-devel is refused with the realtime kernel.
 */
export const REFUSED_TOGETHER: ReadonlyArray<readonly [string, string]> = [['extension:kernel-devel', 'kernelType:realtime']];

function refusedWith(a: Iterable<string>, b: readonly string[]): boolean {
  const has = new Set(a);
  return REFUSED_TOGETHER.some(([x, y]) => (has.has(x) && b.includes(y)) || (has.has(y) && b.includes(x)));
}

export type PoolNeeds = Partial<Record<PoolRole, PoolNeed>>;

export interface SpecPoolNeeds {
  /** The spec's key (specKey of its file): what the plan is keyed by. */
  spec: string;
  needs: PoolNeeds;
}

export interface CustomPool {
  name: string;
  /** The worker node moved into it. */
  node: string;
}

export interface PoolPlan {
  /** Per spec file: the pool each of its roles uses (a role not listed uses the pool of its name). */
  assignments: Record<string, Partial<Record<PoolRole, string>>>;
  /** The custom pools to create before the prepares, one worker each, in order. */
  customPools: CustomPool[];
  /**
   * Specs the cluster's workers cannot hold besides those before them (in run order), each with why: they get no pool
   * and skip before any cluster time, naming another cluster. Absent in a plan written before leftovers existed.
   */
  leftOver?: Array<{ spec: string; why: string }>;
}

/** The plan cannot be made: the message names the specs and what they need; exit 2 before any cluster time. */
export class PoolPlanConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PoolPlanConflict';
  }
}

interface PoolState {
  name: string;
  custom: boolean;
  /** `release`, or `layered:<spec>`: the one image every user of the pool expects. */
  image?: string;
  users: string[];
  aloneFor?: string;
  /** A spec that changes the pool after the upgrade: no spec after it in run order may use the pool. */
  closedBy?: string;
  /** What its users' MachineConfigs put on it besides the image (PoolNeed.settings). */
  settings: Set<string>;
}

const CUSTOM_PREFIX = 'ocp-e2e-';

const SUITE_IMAGE = 'layered:suite';

function imageKey(spec: string, need: PoolNeed): string {
  if (need.image === 'suite') return SUITE_IMAGE;
  return need.image === 'release' ? 'release' : `layered:${spec}`;
}

/** A pool's image for a person: `no override`, `the suite's layered image`, `layered image of <spec>`. */
function describeImage(key: string | undefined): string {
  if (key === 'release') return 'no override';
  if (key === SUITE_IMAGE) return "the suite's layered image";
  return `layered image of ${key?.slice('layered:'.length) ?? '?'}`;
}

function describeNeed(spec: string, role: PoolRole, need: PoolNeed): string {
  const image = need.image === 'release' ? 'no override (the release OS image)' : need.image === 'suite' ? "the suite's layered image" : 'its own layered image';
  return `${spec} needs pool ${role} with ${image}${need.own ? ', and that very pool' : ''}${need.alone ? ', with no other spec on it' : ''}`;
}

/** A name for a custom pool: a MachineConfigPool name and a node-role label suffix (DNS label, ≤ 63). */
function customPoolName(base: string, taken: Set<string>): string {
  const stem = `${CUSTOM_PREFIX}${base}`.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/-+$/, '').slice(0, 55);
  let name = stem;
  for (let i = 2; taken.has(name); i++) name = `${stem}-${i}`;
  taken.add(name);
  return name;
}

/** The case part of a spec file name (`02-upgrade-…spec.ts` → `02`), for short pool names. */
function specStem(spec: string): string {
  return /^(\d+)-/.exec(spec)?.[1] ?? specKey(spec);
}

/**
 * The real pools no spec may change, with why (a pool in on-cluster image mode or one that takes its configs into such
 * a pool, a paused pool): the specs that need them as such skip with that reason, the others get custom pools.
 */
export type UnusablePools = Partial<Record<PoolRole, string>>;

/** Which pool each spec's role uses, before any node is chosen (throws PoolPlanConflict when specs cannot share). */
function layoutPools(specs: readonly SpecPoolNeeds[], unusable: UnusablePools = {}): { pools: Map<string, PoolState>; assignments: PoolPlan['assignments'] } {
  const pools = new Map<string, PoolState>(POOL_ROLES.map((r) => [r, { name: r, custom: false, users: [], settings: new Set<string>() }]));
  const assignments: PoolPlan['assignments'] = {};
  const taken = new Set<string>(POOL_ROLES);
  // post judges the specs in run order: what one changes after the upgrade, the specs after it would see
  const order = new Map(specs.map((s, i) => [s.spec, i]));
  const after = (a: string, b: string): boolean => order.get(a)! > order.get(b)!;
  const assign = (spec: string, role: PoolRole, pool: PoolState, need: PoolNeed): void => {
    pool.image ??= imageKey(spec, need);
    if (!pool.users.includes(spec)) pool.users.push(spec);
    if (need.alone) pool.aloneFor = spec;
    if (need.changesAfterUpgrade) pool.closedBy = spec;
    for (const setting of need.settings ?? []) pool.settings.add(setting);
    (assignments[spec] ??= {})[role] = pool.name;
  };
  const fits = (pool: PoolState, spec: string, need: PoolNeed): boolean =>
    (pool.image === undefined || pool.image === imageKey(spec, need)) &&
    (pool.aloneFor === undefined || pool.aloneFor === spec) &&
    (!need.alone || pool.users.every((u) => u === spec)) &&
    (pool.closedBy === undefined || !after(spec, pool.closedBy)) &&
    (!need.changesAfterUpgrade || pool.users.every((u) => !after(u, spec))) &&
    !refusedWith(pool.settings, need.settings ?? []);
  const newCustom = (stem: string): PoolState => {
    const pool: PoolState = { name: customPoolName(stem, taken), custom: true, users: [], settings: new Set<string>() };
    pools.set(pool.name, pool);
    return pool;
  };
  const entries = (s: SpecPoolNeeds): Array<[PoolRole, PoolNeed]> => POOL_ROLES.flatMap((r) => (s.needs[r] ? [[r, s.needs[r]!] as [PoolRole, PoolNeed]] : []));

  // 1. the specs about a real pool get it, or the plan says who holds it
  for (const s of specs) {
    for (const [role, need] of entries(s).filter(([, n]) => n.own)) {
      const pool = pools.get(role)!;
      if (!fits(pool, s.spec, need)) {
        const holders = pool.users.join(', ');
        throw new PoolPlanConflict(`${describeNeed(s.spec, role, need)}, but ${holders} already use${pool.users.length === 1 ? 's' : ''} it with ${pool.image === 'release' ? 'no override' : 'another image'}`);
      }
      assign(s.spec, role, pool, need);
    }
  }
  // 2. the specs that must be alone on a pool: the real pools when nobody uses them, else one custom pool for the
  //    spec's roles that want the same image
  for (const s of specs) {
    const alone = entries(s).filter(([, n]) => n.alone && !n.own);
    const groups = new Map<string, Array<[PoolRole, PoolNeed]>>();
    for (const e of alone) groups.set(imageKey(s.spec, e[1]), [...(groups.get(imageKey(s.spec, e[1])) ?? []), e]);
    for (const group of groups.values()) {
      if (group.every(([role]) => pools.get(role)!.users.length === 0 && !unusable[role])) {
        for (const [role, need] of group) assign(s.spec, role, pools.get(role)!, need);
        continue;
      }
      const pool = newCustom(specStem(s.spec));
      for (const [role, need] of group) assign(s.spec, role, pool, need);
    }
  }
  // 3. the rest share what fits: the role's own pool first, then any pool with the same image, else a new custom pool
  for (const s of specs) {
    for (const [role, need] of entries(s).filter(([, n]) => !n.own && !n.alone)) {
      const candidates = [...(unusable[role] ? [] : [pools.get(role)!]), ...[...pools.values()].filter((p) => p.custom)];
      const pool = candidates.find((p) => fits(p, s.spec, need)) ?? newCustom(need.image === 'release' ? 'release' : specStem(s.spec));
      assign(s.spec, role, pool, need);
    }
  }

  return { pools, assignments };
}

/** Worker nodes a layout takes: one per custom pool, and one left in pool worker while a spec uses it. */
function workersOf(pools: Map<string, PoolState>): number {
  return [...pools.values()].filter((p) => p.custom).length + (pools.get('worker')!.users.length > 0 ? 1 : 0);
}

/** How many worker nodes the plan of `specs` needs (to size a cluster for it); throws PoolPlanConflict like planPools. */
export function workersNeeded(specs: readonly SpecPoolNeeds[]): number {
  return workersOf(layoutPools(specs).pools);
}

/** The lines that say which specs use which pool, for a person. */
function describePools(pools: Map<string, PoolState>): string[] {
  return [...pools.values()].filter((p) => p.users.length).map((p) => `  - ${p.custom ? 'custom pool ' : 'pool '}${p.name}: ${p.users.join(', ')} (${describeImage(p.image)})`);
}

/**
 * Plans the pools of `specs` (in run order) on a cluster with these worker nodes (names; each custom pool takes one,
 * and the worker pool keeps at least one while a spec uses it). Where the workers cannot hold every spec's pools, the
 * specs are taken in run order while their pools fit and the rest are left over with the reason; specs that can never
 * share (two about one real pool with different images) are refused (PoolPlanConflict), whatever the cluster's size.
 */
export function planPools(specs: readonly SpecPoolNeeds[], workers: readonly string[], unusable: UnusablePools = {}): PoolPlan {
  const all = layoutPools(specs, unusable);
  const taken: SpecPoolNeeds[] = [];
  const leftOver: NonNullable<PoolPlan['leftOver']> = [];
  const neededByAll = workersOf(all.pools);
  if (neededByAll > 0 && workers.length === 0) {
    // a compact or single-node cluster: no worker to make any pool of, so nothing would be planned at all
    const workerPoolUsed = all.pools.get('worker')!.users.length > 0;
    throw new PoolPlanConflict(
      `one upgrade for these specs needs ${neededByAll} worker node(s) (one per custom pool${workerPoolUsed ? ', and one left in pool worker' : ''}); the cluster has none:\n${describePools(all.pools).join('\n')}`,
    );
  }
  for (const s of specs) {
    if (neededByAll <= workers.length) {
      taken.push(s);
      continue;
    }
    const trial = layoutPools([...taken, s], unusable);
    if (workersOf(trial.pools) <= workers.length) {
      taken.push(s);
      continue;
    }
    const own = [...trial.pools.values()].filter((p) => p.custom && p.users.length === 1 && p.users[0] === s.spec).map((p) => `custom pool ${p.name} (${describeImage(p.image)})`);
    leftOver.push({
      spec: s.spec,
      why: `this cluster's ${workers.length} worker node(s) hold the pools of the specs before it, and it needs ${own.length ? own.join(' and ') : 'a worker left in pool worker'}: one upgrade for every selected spec needs ${neededByAll} worker node(s); run it on another cluster (--grep with its case id)`,
    });
  }
  const { pools, assignments } = taken.length === specs.length ? all : layoutPools(taken, unusable);
  const custom = [...pools.values()].filter((p) => p.custom);
  // the last workers go to custom pools, so the worker pool keeps the first ones (sorted names: stable across phases)
  const free = [...workers].sort();
  const customPools = custom.map((p, i) => ({ name: p.name, node: free[free.length - custom.length + i]! }));
  return { assignments, customPools, ...(leftOver.length ? { leftOver } : {}) };
}

/** The key of a spec file in a plan: its base name without `.spec.ts` / `.spec.js`, the same for sources and build. */
export function specKey(file: string): string {
  return file.replace(/^.*[\\/]/, '').replace(/\.spec\.[cm]?[jt]s$/, '');
}

/** The pool a spec's role uses under the plan (its own name without a plan). */
export function poolOf(plan: Pick<PoolPlan, 'assignments'> | undefined, spec: string, role: string): string {
  return plan?.assignments[spec]?.[role as PoolRole] ?? role;
}
