/**
 * The target of a run, as the `ocp-e2e run` command hands it to the mocha process. This is the only module that reads
 * the environment, and only when the session asks (readTargetConfig): specs and the other helpers get the target from
 * the session, so a spec never knows whether it runs against the embedded reference cluster or a real one.
 */
import { randomBytes } from 'node:crypto';

export type TargetKind = 'reference' | 'cluster';

/**
 * Which part of each upgrade spec this process runs (QE's upgrade pipelines split it over processes and machines):
 * `pre` prepares and leaves a checkpoint on the cluster, `upgrade` triggers the upgrade and waits, `post` judges what
 * someone's upgrade did and cleans up; `all` does the three in one process.
 */
export type RunPhase = 'all' | 'pre' | 'upgrade' | 'post';
export const RUN_PHASES: readonly RunPhase[] = ['all', 'pre', 'upgrade', 'post'];

/**
 * How the checks read a node (helpers/node-os.ts): `daemon` execs into the node's machine-config-daemon pod, `debug`
 * makes a debug pod (`oc debug node/N`, or the same pod through the API without oc), `auto` the daemon where one is
 * ready and a debug pod where not.
 */
export type NodeReadMode = 'auto' | 'daemon' | 'debug';
export const NODE_READ_MODES: readonly NodeReadMode[] = ['auto', 'daemon', 'debug'];

export interface TargetConfig {
  kind: TargetKind;
  kubeconfigPath: string;
  /**
   * The release images to upgrade to, hop by hop (the first, then each next from the one before); undefined or empty
   * means "the cluster's first available update".
   */
  toImages?: string[];
  /** Repository the layered images are pushed to; on the reference cluster it comes from its info ConfigMap. */
  imageRepo?: string;
  /** The run's registry auth file, chosen once by the run (--pull-secret or its first fallback, helpers/credentials.ts): spec processes read it and look for no other. */
  pullSecretPath?: string;
  allowDisruptive: boolean;
  keepOnFailure: boolean;
  /** Short id of this run: names the pushed images and labels every object the suite creates. */
  runId: string;
  /** Where results, JUnit and failure artefacts go (default `reports`). */
  reportsDir: string;
  /**
   * How long an interrupted spec may spend undoing what it changed before it prints what is left and exits (default:
   * what the undo's roll-out may take on the cluster's pools, see spec-budget.ts; before the session connected
   * DEFAULT_INTERRUPT_GRACE_SECONDS; 0 undoes nothing and only prints it).
   */
  interruptGraceSeconds?: number;
  /** The part of each upgrade spec this process runs (default `all`). */
  phase: RunPhase;
  /** Every wait's budget, and with them the tests' timeouts, times this (`--timeout-scale`; default 1). */
  timeoutScale?: number;
  /** The layered image's Containerfile (`--containerfile`, an absolute path); default images/layered-os/Containerfile. */
  containerfile?: string;
  /** Its build arguments besides the suite's (`--build-arg`). */
  buildArgs?: Record<string, string>;
  /**
   * Which pool each spec's roles use when many specs share one upgrade (helpers/plan/pool-plan.ts); none: their own.
   * `leftOver`: the specs the cluster cannot hold beside the others, each skipped before cluster time with its reason.
   */
  poolPlan?: { assignments: Record<string, Record<string, string>>; leftOver?: Array<{ spec: string; why: string }> };
  /**
   * `--phase post` of specs sharing one upgrade: the spec (its specKey) whose end runs every spec's cleanup, so no
   * cleanup changes the cluster while another spec still judges it (deferred-cleanup.ts).
   */
  cleanupAfter?: string;
  /** How the checks read nodes (`--node-reads`; default auto). */
  nodeReads: NodeReadMode;
  /** `--idms-file` and `--icsp-file`, absolute: the mirror sets pulls follow instead of the cluster's (helpers/mirror-sets.ts). */
  mirrorFiles?: string[];
}

/** Before the session knows the cluster's pools: enough for a small or fast cluster's pools to settle back. */
export const DEFAULT_INTERRUPT_GRACE_SECONDS = 120;

export const TargetEnv = {
  kubeconfig: 'KUBECONFIG',
  target: 'OCP_E2E_TARGET',
  toImage: 'OCP_E2E_TO_IMAGE',
  imageRepo: 'OCP_E2E_IMAGE_REPO',
  pullSecret: 'OCP_E2E_PULL_SECRET',
  allowDisruptive: 'OCP_E2E_ALLOW_DISRUPTIVE',
  keepOnFailure: 'OCP_E2E_KEEP_ON_FAILURE',
  runId: 'OCP_E2E_RUN_ID',
  reportsDir: 'OCP_E2E_REPORTS_DIR',
  interruptGraceSeconds: 'OCP_E2E_INTERRUPT_GRACE_SECONDS',
  phase: 'OCP_E2E_PHASE',
  timeoutScale: 'OCP_E2E_TIMEOUT_SCALE',
  containerfile: 'OCP_E2E_CONTAINERFILE',
  /** A JSON object of names and values. */
  buildArgs: 'OCP_E2E_BUILD_ARGS',
  poolPlan: 'OCP_E2E_POOL_PLAN',
  cleanupAfter: 'OCP_E2E_CLEANUP_AFTER',
  nodeReads: 'OCP_E2E_NODE_READS',
  /** Comma-separated paths; helpers/mirror-sets.ts reads them (MIRROR_FILES_ENV). */
  mirrorFiles: 'OCP_E2E_MIRROR_FILES',
} as const;

/** The phase of the run. Read on its own, at spec load, because it changes the tests' titles (PreChkUpgrade). */
export function readRunPhase(env: NodeJS.ProcessEnv = process.env): RunPhase {
  const phase = (env[TargetEnv.phase]?.trim() || 'all') as RunPhase;
  if (!RUN_PHASES.includes(phase)) throw new Error(`${TargetEnv.phase}=${phase} is not a phase; use ${RUN_PHASES.join(', ')}`);
  return phase;
}

function readNodeReadMode(env: NodeJS.ProcessEnv): NodeReadMode {
  const mode = (env[TargetEnv.nodeReads]?.trim() || 'auto') as NodeReadMode;
  if (!NODE_READ_MODES.includes(mode)) throw new Error(`${TargetEnv.nodeReads}=${mode} is not a way to read nodes; use ${NODE_READ_MODES.join(', ')}`);
  return mode;
}

/** A comma-separated list of an environment variable, empty items dropped; undefined when there are none. */
function listOf(value: string | undefined): string[] | undefined {
  const items = (value ?? '').split(',').map((v) => v.trim()).filter(Boolean);
  return items.length ? items : undefined;
}

function flag(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes)$/i.test(value.trim());
}

/**
 * A run id usable in image tags and label values (lowercase, digits, dashes) that sorts by time and does not collide:
 * `r20261201t022500-1a2b3c`.
 */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, '').toLowerCase();
  return `r${stamp}-${randomBytes(3).toString('hex')}`;
}

export function readTargetConfig(env: NodeJS.ProcessEnv = process.env): TargetConfig {
  const kind = (env[TargetEnv.target] ?? 'cluster').trim() as TargetKind;
  if (kind !== 'reference' && kind !== 'cluster') {
    throw new Error(`${TargetEnv.target}=${kind} is not a target; use "reference" or "cluster"`);
  }
  const kubeconfigPath = env[TargetEnv.kubeconfig]?.split(':')[0];
  if (!kubeconfigPath) {
    throw new Error(`no kubeconfig: set ${TargetEnv.kubeconfig} (ocp-e2e run --kubeconfig FILE does that for you)`);
  }
  const runId = env[TargetEnv.runId]?.trim() || newRunId();
  if (!/^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/.test(runId)) {
    throw new Error(`${TargetEnv.runId}=${runId} cannot label objects or tag images; use lowercase letters, digits and dashes`);
  }
  const grace = env[TargetEnv.interruptGraceSeconds]?.trim();
  if (grace !== undefined && grace !== '' && !(Number(grace) >= 0)) {
    throw new Error(`${TargetEnv.interruptGraceSeconds}=${grace} is not a number of seconds`);
  }
  const scale = env[TargetEnv.timeoutScale]?.trim();
  if (scale !== undefined && scale !== '' && !(Number(scale) > 0)) {
    throw new Error(`${TargetEnv.timeoutScale}=${scale} is not a positive number`);
  }
  const poolPlan = readPoolPlan(env[TargetEnv.poolPlan]);
  return {
    ...(grace ? { interruptGraceSeconds: Number(grace) } : {}),
    ...(scale ? { timeoutScale: Number(scale) } : {}),
    ...layeredImageOf(env),
    ...(poolPlan ? { poolPlan } : {}),
    ...(env[TargetEnv.cleanupAfter]?.trim() ? { cleanupAfter: env[TargetEnv.cleanupAfter]!.trim() } : {}),
    kind,
    kubeconfigPath,
    toImages: listOf(env[TargetEnv.toImage]),
    imageRepo: env[TargetEnv.imageRepo]?.trim() || undefined,
    pullSecretPath: env[TargetEnv.pullSecret]?.trim() || undefined,
    ...(listOf(env[TargetEnv.mirrorFiles])?.length ? { mirrorFiles: listOf(env[TargetEnv.mirrorFiles]) } : {}),
    allowDisruptive: flag(env[TargetEnv.allowDisruptive]),
    keepOnFailure: flag(env[TargetEnv.keepOnFailure]),
    runId,
    reportsDir: env[TargetEnv.reportsDir]?.trim() || 'reports',
    phase: readRunPhase(env),
    nodeReads: readNodeReadMode(env),
  };
}

/** The layered image's Containerfile and build arguments, when the run was given them. */
function layeredImageOf(env: NodeJS.ProcessEnv): Pick<TargetConfig, 'containerfile' | 'buildArgs'> {
  const containerfile = env[TargetEnv.containerfile]?.trim() || undefined;
  const text = env[TargetEnv.buildArgs]?.trim();
  if (!text) return containerfile ? { containerfile } : {};
  let buildArgs: unknown;
  try {
    buildArgs = JSON.parse(text);
  } catch {
    buildArgs = undefined;
  }
  if (!buildArgs || typeof buildArgs !== 'object' || Array.isArray(buildArgs) || !Object.values(buildArgs).every((v) => typeof v === 'string')) {
    throw new Error(`${TargetEnv.buildArgs} is not a JSON object of strings: ${text.slice(0, 80)}`);
  }
  return { ...(containerfile ? { containerfile } : {}), buildArgs: buildArgs as Record<string, string> };
}

/** Environment variables that hand a target to a child mocha process (the inverse of readTargetConfig). */
export function targetEnvironment(config: TargetConfig): Record<string, string> {
  const env: Record<string, string> = {
    [TargetEnv.kubeconfig]: config.kubeconfigPath,
    [TargetEnv.target]: config.kind,
    [TargetEnv.allowDisruptive]: config.allowDisruptive ? '1' : '0',
    [TargetEnv.keepOnFailure]: config.keepOnFailure ? '1' : '0',
    [TargetEnv.runId]: config.runId,
    [TargetEnv.reportsDir]: config.reportsDir,
    [TargetEnv.phase]: config.phase,
    [TargetEnv.nodeReads]: config.nodeReads,
  };
  // a path of pullspecs in one variable: a pullspec has no comma
  if (config.toImages?.length) env[TargetEnv.toImage] = config.toImages.join(',');
  if (config.imageRepo) env[TargetEnv.imageRepo] = config.imageRepo;
  if (config.pullSecretPath) env[TargetEnv.pullSecret] = config.pullSecretPath;
  if (config.interruptGraceSeconds !== undefined) env[TargetEnv.interruptGraceSeconds] = String(config.interruptGraceSeconds);
  if (config.timeoutScale !== undefined) env[TargetEnv.timeoutScale] = String(config.timeoutScale);
  if (config.containerfile) env[TargetEnv.containerfile] = config.containerfile;
  if (config.buildArgs && Object.keys(config.buildArgs).length) env[TargetEnv.buildArgs] = JSON.stringify(config.buildArgs);
  if (config.poolPlan) env[TargetEnv.poolPlan] = JSON.stringify(config.poolPlan);
  if (config.cleanupAfter) env[TargetEnv.cleanupAfter] = config.cleanupAfter;
  if (config.mirrorFiles?.length) env[TargetEnv.mirrorFiles] = config.mirrorFiles.join(',');
  return env;
}

/** The pool plan the run hands over: `{"assignments":{"<spec key>":{"worker":"<pool>"}}}`. */
function readPoolPlan(text: string | undefined): TargetConfig['poolPlan'] {
  if (!text?.trim()) return undefined;
  let plan: unknown;
  try {
    plan = JSON.parse(text);
  } catch {
    throw new Error(`${TargetEnv.poolPlan} is not JSON: ${text.slice(0, 80)}`);
  }
  const assignments = (plan as { assignments?: unknown })?.assignments;
  const valid = assignments && typeof assignments === 'object' && Object.values(assignments).every((a) => a && typeof a === 'object' && Object.values(a).every((p) => typeof p === 'string'));
  if (!valid) throw new Error(`${TargetEnv.poolPlan} has no {"assignments": {spec: {role: pool}}}: ${text.slice(0, 80)}`);
  const leftOver = (plan as { leftOver?: unknown }).leftOver;
  if (leftOver !== undefined && !(Array.isArray(leftOver) && leftOver.every((l) => typeof l?.spec === 'string' && typeof l?.why === 'string'))) {
    throw new Error(`${TargetEnv.poolPlan} has a leftOver that is not [{"spec": …, "why": …}]: ${text.slice(0, 80)}`);
  }
  return { assignments: assignments as Record<string, Record<string, string>>, ...(leftOver ? { leftOver: leftOver as Array<{ spec: string; why: string }> } : {}) };
}
