/** The options of `ocp-e2e run`: their definitions on the command line and the checks made before any cluster time. */
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { loadPullSecret } from '../../helpers/secrets.js';
import { NODE_READ_MODES, RUN_PHASES, type NodeReadMode, type RunPhase } from '../../helpers/target.js';
import { resolveFaults } from '../../reference/faults.js';
import { CLOCK_MODES, DEFAULT_CLOCK, type ClockMode } from '../../reference/clock.js';
import { ARCHES, TOPOLOGIES, type Arch, type Topology } from '../../reference/topology.js';

/**
 * The reference's clock when the command line names none: `skip`, since a wait the cluster sits out costs no wall
 * time there, and the suite reads the cluster's time from the server (helpers/target-clock.ts), so its budgets and
 * reported durations stay true. `--clock fixed` keeps wall time × factor throughout.
 */
import { DEFAULT_PROFILE, PROFILE_NAMES } from '../../reference/profiles/index.js';
import { collect, nonNegativeInteger, positiveInteger, positiveNumber } from '../args.js';
import { profileChoicesText } from '../help.js';
import { checkInputSyntax } from './preflight/inputs.js';
import { mirrorSetsFromFiles } from '../../helpers/mirror-sets.js';
import { parseShard, type Shard } from './schedule/shard.js';
import { specFileNames } from './specs.js';
import { UsageError } from './usage-error.js';

/** The formats of `run --list` (bin/run/list.ts). */
export const LIST_FORMATS = ['text', 'json'] as const;
export type ListFormat = (typeof LIST_FORMATS)[number];

export interface RunOptions {
  target: 'reference' | 'cluster';
  profile?: string;
  fault?: string[];
  grep?: string;
  /** The upgrade path: the release to upgrade to, then each further hop in order. */
  toImage?: string[];
  imageRepo?: string;
  pullSecret?: string;
  kubeconfig?: string;
  allowDisruptive?: boolean;
  keepOnFailure?: boolean;
  timeFactor?: number;
  /** Reference only: `fixed` cluster time (wall × factor) or `skip` (also jumps over idle cluster time). */
  clock?: ClockMode;
  /** Reference only: the seed of every reference cluster of the run (default 1), so a failing run can be replayed. */
  seed?: number;
  topology?: Topology;
  infraNodes?: number;
  arch?: Arch;
  /** Where allure-results, junit and artifacts go (default $ARTIFACT_DIR, else `reports`). */
  reportsDir?: string;
  /** Spec files to consider (default: every specs/*.spec.ts). */
  specs?: string[];
  /** Reference only: spec files run at the same time, each on its own reference cluster (default from the cores). */
  jobs?: number;
  /** This job's part of the spec files, `i/n` (CI fan-out). */
  shard?: Shard;
  /** YAML file of known issues: matching failures are reported as known, not as failures. */
  knownIssues?: string;
  /** Re-run only what failed in the run of this reports folder (true: the --reports-dir). */
  rerunFailed?: string | true;
  /** The part of each upgrade spec this run does (default all); pre, upgrade and post need --target cluster. */
  phase?: RunPhase;
  /** How the checks read nodes: through their machine-config-daemon pods, debug pods, or auto (default). */
  nodeReads?: NodeReadMode;
  /** Every wait's budget, and the tests' timeouts with them, times this (default 1). */
  timeoutScale?: number;
  /** Reference only: one reference cluster for every selected spec, run as on a real cluster (one upgrade, planned). */
  oneCluster?: boolean;
  /** The layered image's Containerfile (default images/layered-os/Containerfile). */
  containerfile?: string;
  /** `NAME=VALUE` build arguments of it (repeatable). */
  buildArg?: string[];
  /** Reference only: clusters whose payloads name quay.io, reached through mirror sets (reference/mirror-sets.ts). */
  disconnected?: boolean;
  /** ImageDigestMirrorSet/ImageTagMirrorSet files whose mirrors every pull follows instead of the cluster's. */
  idmsFile?: string[];
  /** ImageContentSourcePolicy files, likewise. */
  icspFile?: string[];
  /** Print what the run would run (bin/run/list.ts) instead of running it. */
  list?: boolean;
  /** --list's format (default text). */
  output?: ListFormat;
}

export function defineRunOptions(command: Command): Command {
  // The reference-only defaults are written in the text, not set: a value set by default would count as given, and
  // --profile, --fault and --time-factor are refused with --target cluster (commander shows no default it does not set).
  return command
    .addOption(new Option('--target <target>', 'where to run: the embedded reference cluster, or the cluster of a kubeconfig').choices(['reference', 'cluster']).default('reference'))
    .addOption(new Option('--profile <profile>', `reference only: ${profileChoicesText()}`).choices(PROFILE_NAMES))
    .addOption(new Option('--fault <name...>', 'reference only: break a behaviour on purpose (names below; repeatable or comma-separated) (default: none)').argParser(collect))
    .option('--grep <regexp>', `run only the specs whose title matches, e.g. 54183 or E2E-004 (default: all ${specFileNames().length} specs)`)
    .option('--to-image <pullspec>', 'release image to upgrade to; again (or comma-separated) for each further hop of an upgrade path, in order, e.g. 4.21 then 4.22 from 4.20 (default: the cluster\'s first availableUpdates entry; on a reference profile of several hops, its path)', collect)
    .option('--image-repo <repository>', 'where layered OS images are pushed (required on real clusters; default on the reference: its local registry)')
    .option('--pull-secret <file>', 'registry credentials for pulling base images and pushing layered images (default: $REGISTRY_AUTH_FILE, podman\'s auth.json, $DOCKER_CONFIG/config.json or ~/.docker/config.json; docs/credentials.md)')
    .option('--kubeconfig <file>', 'cluster only: kubeconfig of the cluster (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--allow-disruptive', 'run specs that upgrade the cluster or change its pools (default: off on real clusters, always on on the reference)')
    .option('--keep-on-failure', 'leave what a failed spec created in place for inspection, and print how to undo it (default: off)')
    .addOption(new Option('--time-factor <n>', 'reference only: cluster seconds per wall second (default: 600, ten cluster minutes per wall second)').argParser(positiveNumber))
    .addOption(new Option('--clock <mode>', `reference only: skip (cluster time is wall time × the time factor while the cluster works, and jumps to the next timer when nothing does: a wait costs no wall time) or fixed (always wall time × the factor) (default: ${DEFAULT_CLOCK})`).choices([...CLOCK_MODES]))
    .addOption(new Option('--topology <shape>', 'reference only: the shape of each reference cluster: ha (three masters and the workers), compact (three masters that are the workers) or sno (single-node OpenShift) (default: ha)').choices([...TOPOLOGIES]))
    .addOption(new Option('--arch <arch>', 'reference only: the nodes\' architectures: amd64, arm64, or multi (amd64 masters, workers amd64 and arm64; OS images and payload as image indexes); the layered image is built for each architecture its pools run (default: amd64)').choices([...ARCHES]))
    .addOption(new Option('--infra-nodes <n>', 'reference only: nodes of an infra pool beside the workers, as OpenShift documents it (it selects the worker configs, so a worker override rolls onto them too) (default: none)').argParser(nonNegativeInteger))
    .addOption(new Option('--disconnected', 'reference only: disconnected clusters: the payloads name quay.io\'s pullspecs, reached only through mirror sets to the local registry (an ImageContentSourcePolicy on 4.12, ImageDigestMirrorSet and ImageTagMirrorSet from the 4.18 CRDs); the nodes follow them, quay.io is unreachable from the nodes and from the specs (default: off)'))
    .option('--idms-file <file>', 'ImageDigestMirrorSet / ImageTagMirrorSet YAML (as oc-mirror writes it; repeatable): every pull and release read of the suite follows these mirrors instead of the cluster\'s own mirror sets (default: the cluster\'s)', collect)
    .option('--icsp-file <file>', 'ImageContentSourcePolicy YAML (as oc adm release mirror prints it; repeatable), likewise; oc adm release info gets it as --icsp-file (default: the cluster\'s)', collect)
    .addOption(new Option('--seed <n>', 'reference only: seed of every reference cluster of the run (durations, resyncs, boot ids), printed with the run and written to the report\'s environment: replays a run (default: 1)').argParser(nonNegativeInteger))
    // Prow (OpenShift CI) gives every step $ARTIFACT_DIR and keeps what is written there: reports go there unless told otherwise.
    .addOption(new Option('--reports-dir <dir>', 'where Allure results, JUnit XML and failure artefacts go (those three folders are emptied first); without it, $ARTIFACT_DIR when set (Prow\'s artifacts folder), else reports').env('ARTIFACT_DIR').default('reports'))
    .addOption(new Option('--one-cluster', 'reference only: one reference cluster for all the selected specs, run as --target cluster runs them on a real cluster (one upgrade shared by the upgrade specs, custom pools where they would collide); the cluster gets the workers the plan needs (default: a fresh cluster per spec file)'))
    .option('--jobs <n>', 'reference only: spec files run at the same time, each on its own reference cluster (default: one per core)', positiveInteger)
    .option('--known-issues <file>', 'YAML list of {case, message, bug, expires}: a failure an unexpired entry matches is reported as a known issue with its bug link, not as a failure (default: none)')
    .option('--rerun-failed [reports-dir]', 'run only the tests that failed in the run whose reports are in this folder (default: --reports-dir)')
    .addOption(new Option('--node-reads <mode>', 'how the checks read a node\'s OS (rpm-ostree status, files, units): daemon (exec into the node\'s machine-config-daemon pod, chroot /rootfs, as the MCO\'s own e2e tests do: one API call, needs pods/exec in openshift-machine-config-operator), debug (a debug pod per node and check: `oc debug node/N`, or the same pod through the API without oc) or auto (the daemon where one is ready, else a debug pod) (default: auto)').choices([...NODE_READ_MODES]).default('auto'))
    .addOption(new Option('--phase <phase>', 'cluster only: the part of each upgrade spec to run: pre (prepare, leave a checkpoint on the cluster), upgrade (upgrade and wait), post (judge whoever upgraded, clean up, remove the checkpoint) or all').choices([...RUN_PHASES]).default('all'))
    .option('--containerfile <file>', 'the Containerfile of the layered OS image: FROM ${BASE_IMAGE} (the release\'s base OS image; ARG EXTENSIONS_IMAGE gets its extensions image), its folder the build context, its ocp-e2e.io/check-packages, check-files and check-units labels what every node must show (docs/custom-layered-image.md) (default: images/layered-os/Containerfile, usbguard from the release\'s extensions image, a file and an enabled unit)')
    .option('--build-arg <name=value>', 'a build argument of the layered image\'s Containerfile, which must declare it with ARG (repeatable) (default: none)', collect)
    .option('--timeout-scale <f>', 'every wait\'s budget times F, and with them each test\'s timeout, which follows the waits of the cluster\'s pool sizes and clock so that a wait\'s own diagnosis comes first: 2 for a slow cluster (default: 1)', positiveNumber)
    .option('--shard <i/n>', 'run only the i-th of n deterministic parts of the spec files (CI fan-out; merge the reports with `ocp-e2e merge-reports`) (default: all of them)', parseShard)
    .option('--list', 'print the tests this run would run (as --grep, --shard and --phase select them) with case id, tags, phases, what each changes on the cluster, whether it upgrades and whether this run would skip it, then exit 0; starts and reads nothing: no cluster, kubeconfig, engine or oc needed (default: off, the run runs)')
    .addOption(new Option('--output <format>', 'with --list: text for people, json for machines (default: text)').choices([...LIST_FORMATS]));
}

/** The reference profile a run uses: the one given, else the registry's default. */
export function profileOf(options: Pick<RunOptions, 'profile'>): string {
  return options.profile ?? DEFAULT_PROFILE;
}

/** The reference's clock mode of a run: the one asked for, else DEFAULT_CLOCK. */
export function clockModeOf(options: Pick<RunOptions, 'clock'>): ClockMode {
  return options.clock ?? DEFAULT_CLOCK;
}

/** Refuses combinations that make no sense and values that cannot work, before anything starts. */
export function validateOptions(options: RunOptions): void {
  if (options.target === 'cluster') {
    for (const [flag, value] of [['--disconnected', options.disconnected], ['--profile', options.profile], ['--fault', options.fault], ['--time-factor', options.timeFactor], ['--clock', options.clock], ['--seed', options.seed], ['--topology', options.topology], ['--infra-nodes', options.infraNodes], ['--arch', options.arch]] as const) {
      if (value !== undefined) throw new UsageError(`${flag} applies to --target reference only`);
    }
    if (options.jobs !== undefined && options.jobs > 1) {
      throw new UsageError('--jobs applies to --target reference only: the specs change the whole cluster ([Serial]), so on one cluster they run one after another; use --shard to spread them over clusters');
    }
    if (options.oneCluster) throw new UsageError('--one-cluster applies to --target reference only: --target cluster runs every spec on its one cluster already');
  } else if (options.kubeconfig) {
    throw new UsageError('--kubeconfig applies to --target cluster only (the reference cluster makes its own)');
  }
  if (options.oneCluster && options.jobs !== undefined && options.jobs > 1) {
    throw new UsageError('--one-cluster runs the specs one after another on one cluster: leave out --jobs, or use --shard to spread them over clusters');
  }
  if (options.phase && options.phase !== 'all') {
    if (options.target !== 'cluster') {
      throw new UsageError(
        `--phase ${options.phase} needs --target cluster: the reference target gives every spec file a fresh cluster, so no phase could go on from another; ` +
          'start one that stays with `ocp-e2e cluster up --env-out FILE`, then run each phase with --target cluster --kubeconfig <its kubeconfig>',
      );
    }
    if (options.rerunFailed !== undefined) throw new UsageError(`--rerun-failed re-runs whole tests: it cannot be combined with --phase ${options.phase}`);
  }
  if (options.output !== undefined && !options.list) throw new UsageError('--output applies to --list only (a run\'s own output is its console, reports and JUnit)');
  if (options.list && options.rerunFailed !== undefined) throw new UsageError('--list lists what --grep, --shard and --phase select: it cannot be combined with --rerun-failed');
  if (options.rerunFailed !== undefined) {
    for (const [flag, value] of [['--grep', options.grep], ['--shard', options.shard]] as const) {
      if (value !== undefined) throw new UsageError(`--rerun-failed chooses the tests itself: leave out ${flag}`);
    }
  }
  if (options.fault?.length) {
    try {
      resolveFaults(options.fault);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  if (options.grep !== undefined) {
    try {
      new RegExp(options.grep);
    } catch (error) {
      throw new UsageError(`--grep is not a regular expression: ${(error as Error).message}`);
    }
  }
  checkInputSyntax(options);
  if (options.idmsFile?.length || options.icspFile?.length) {
    try {
      mirrorSetsFromFiles({ idms: options.idmsFile, icsp: options.icspFile });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  if (options.pullSecret) {
    try {
      loadPullSecret(resolve(options.pullSecret)); // registers its credentials for masking our own output too
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
}
