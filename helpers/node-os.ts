/**
 * A node asked about itself, the same way on every target: one command per node and check runs every probe of the
 * check (node-probes.ts) in one `chroot <host root> sh -c '…'`, each probe's answer between two marker lines of its
 * own. The command runs in the node's machine-config-daemon pod (daemon-exec.ts: one exec, as the MCO's own e2e
 * helpers read a node) or in a debug pod: `oc debug node/N` when `oc` is installed, otherwise the same privileged pod
 * created through the API (debug-pod.ts) and its log read. All feed the same parsers.
 */
import { hasCli, oc, type CliResult } from './cli.js';
import { OC_TRANSIENT_RETRY, retryTransientCli } from './cli-transient.js';
import type { Cluster } from './cluster.js';
import { DAEMON_CONTAINER, DAEMON_NAMESPACE, execInDaemon } from './daemon-exec.js';
import { runOnNode } from './debug-pod.js';
import type { NodeProbe, ProbeSource } from './node-probes.js';
import type { NodeReadMode } from './target.js';
import type { Node } from './types.js';

export { packageInList, parseRpmOstreeStatus, stripTransport, type BootedImage } from './node-probes.js';

const begin = (probe: NodeProbe<unknown>): string => `--- ocp-e2e probe: ${probe.name} ---`;
const end = (probe: NodeProbe<unknown>): string => `--- ocp-e2e probe end: ${probe.name} ---`;

/**
 * The shell list the debug pod runs on the host (exported for the tests). The bare `echo` after each fragment ends
 * its answer on a line of its own even when the answer (a file's content) has no final newline; the reader takes it off.
 * `exec 2>&1` first: a fragment's complaint on stderr (stat's, systemctl's) is part of its answer, and only one
 * stream keeps it there. Stdout and stderr travel apart (an exec's channels, a pod log's two pipes) and were merged
 * as they arrived: under load systemctl's 'Failed to get unit file state' of a later probe landed inside a file's
 * content in an earlier one (kill-matrix row 12's rare failure in a full npm test), and `oc debug`, which keeps only
 * stdout, lost the complaints.
 */
export function probeScript(probes: ReadonlyArray<NodeProbe<unknown>>): string {
  const names = new Set<string>();
  for (const p of probes) {
    if (names.has(p.name)) throw new Error(`probe ${p.name} is asked twice in one read`);
    names.add(p.name);
  }
  return ['exec 2>&1', ...probes.map((p) => `echo '${begin(p)}'; ${p.script}; echo; echo '${end(p)}'`)].join('; ');
}

/** What one read printed, cut into the probes' sections; each is parsed when asked for. */
export class ProbeReadings {
  constructor(
    readonly node: string,
    readonly source: ProbeSource,
    private readonly sections: ReadonlyMap<string, string>,
  ) {}

  /** The probe's answer; throws, naming the node, when the node's answer cannot be read. */
  get<T>(probe: NodeProbe<T>): T {
    const section = this.sections.get(probe.name);
    if (section === undefined) throw new Error(`node ${this.node}: probe ${probe.name} was not part of this read`);
    try {
      return probe.parse(section, this.source);
    } catch (error) {
      throw new Error(`node ${this.node}: ${probe.name}: ${(error as Error).message}`);
    }
  }
}

/** Cuts the read's output at the probes' markers; says what the node printed when an answer is not there. */
export function splitProbeOutput(node: string, output: string, probes: ReadonlyArray<NodeProbe<unknown>>, source: ProbeSource): ProbeReadings {
  const sections = new Map<string, string>();
  let from = 0;
  for (const probe of probes) {
    const opening = `${begin(probe)}\n`;
    const start = output.indexOf(opening, from);
    const stop = start < 0 ? -1 : output.indexOf(`\n${end(probe)}`, start + opening.length - 1);
    if (start < 0 || stop < 0) {
      throw new Error(`node ${node}: the ${source === 'daemon exec' ? 'daemon exec' : 'debug pod'}'s output does not hold the answer of probe ${probe.name}: ${output.trim().slice(-400) || '(no output)'}`);
    }
    // the fragment's output, exactly: the newline before the end marker is the bare `echo`'s
    sections.set(probe.name, output.slice(start + opening.length, stop));
    from = stop;
  }
  return new ProbeReadings(node, source, sections);
}

export interface NodeRead {
  readings: ProbeReadings;
  /** How the node was asked (the daemon exec, the `oc debug` command line, or the debug pod), and what it printed: for the report. */
  asked: { how: string; output: string };
}

const OC_DEBUG_ATTEMPTS = OC_TRANSIENT_RETRY.attempts;

/**
 * `oc debug node/N -- CMD`. oc itself does not retry: a passing API error would fail the check although the node is
 * fine, so a run whose stderr names one is repeated (helpers/cli-transient.ts).
 */
async function ocDebug(name: string, command: string[], kubeconfig: string, lastMarker: string): Promise<{ command: string; stdout: string }> {
  // `oc debug` without a terminal prints the log and exits 1 when the command did not exit 0: an answer that holds
  // every probe's section is the node's answer whatever the exit code
  const answered = (r: CliResult) => r.exitCode === 0 || (lastMarker !== '' && r.stdout.includes(lastMarker));
  const { result: r, attempts } = await retryTransientCli(
    () => oc(['debug', `node/${name}`, '--', ...command], { kubeconfig, timeoutMs: 300_000, allowFailure: true }),
    answered,
  );
  if (answered(r)) return r;
  const last = r.stderr.trim().split('\n').pop() ?? '';
  throw new Error(`\`${r.command}\` exited ${r.exitCode}${attempts > 1 ? ` (attempt ${attempts} of ${OC_DEBUG_ATTEMPTS})` : ''}: ${last}`);
}

/** How a read reaches the node: the mode asked for, and the node's ready daemon pod where one was found. */
export interface NodeReadRoute {
  mode: NodeReadMode;
  /** The name of the node's machine-config-daemon pod (in DAEMON_NAMESPACE), ready when the pods were listed. */
  daemonPod?: string;
}

/**
 * One command on `node` answers every probe: through its daemon pod (mode daemon, or auto with a ready daemon), else a
 * debug pod. In auto a daemon exec that fails (the pod went away, the exec was refused or cut, the answer is not
 * whole) falls back to a debug pod, and the report's `how` says why; in daemon mode it is the check's error.
 * `labels` go on the debug pod's namespace where the suite makes it (without `oc`); `oc debug` makes and removes its own.
 */
export async function readNode(
  cluster: Cluster,
  kubeconfig: string,
  node: Node,
  probes: ReadonlyArray<NodeProbe<unknown>>,
  labels: Record<string, string> = {},
  route: NodeReadRoute = { mode: 'debug' },
): Promise<NodeRead> {
  const name = node.metadata?.name ?? '?';
  const script = probeScript(probes);
  const lastMarker = probes.length ? end(probes[probes.length - 1]!) : '';
  let fellBack = '';
  if (route.mode !== 'debug') {
    if (!route.daemonPod) {
      if (route.mode === 'daemon') throw new Error(`node ${name}: no ready ${DAEMON_CONTAINER} pod runs on it in ${DAEMON_NAMESPACE}, and --node-reads daemon reads nodes only through it`);
      fellBack = `no ready ${DAEMON_CONTAINER} pod on node ${name}`;
    } else {
      const command = ['chroot', '/rootfs', 'sh', '-c', script];
      const where = `exec in ${DAEMON_NAMESPACE}/${route.daemonPod} (container ${DAEMON_CONTAINER}) on node ${name}`;
      const how = `${where}: ${command.join(' ')}`;
      try {
        const r = await execInDaemon(cluster.kubeConfig, route.daemonPod, command);
        // like oc debug's, an answer that holds every probe's section is the node's answer whatever the exit code
        if (r.exitCode !== 0 && !(lastMarker !== '' && r.output.includes(lastMarker))) {
          throw new Error(`the command exited ${r.exitCode}: ${r.output.trim().slice(-300) || '(no output)'}`);
        }
        return { readings: splitProbeOutput(name, r.output, probes, 'daemon exec'), asked: { how, output: r.output } };
      } catch (error) {
        if (route.mode === 'daemon') throw new Error(`node ${name}: ${where}: ${(error as Error).message}`);
        fellBack = `the daemon exec failed (${(error as Error).message.split('\n')[0]})`;
      }
    }
  }
  const read = await readNodeWithDebugPod(cluster, kubeconfig, name, script, probes, lastMarker, labels);
  return fellBack ? { ...read, asked: { ...read.asked, how: `${read.asked.how} (a debug pod: ${fellBack})` } } : read;
}

async function readNodeWithDebugPod(
  cluster: Cluster,
  kubeconfig: string,
  name: string,
  script: string,
  probes: ReadonlyArray<NodeProbe<unknown>>,
  lastMarker: string,
  labels: Record<string, string>,
): Promise<NodeRead> {
  const command = ['chroot', '/host', 'sh', '-c', script];
  if (await hasCli('oc')) {
    const r = await ocDebug(name, command, kubeconfig, lastMarker);
    return { readings: splitProbeOutput(name, r.stdout, probes, 'oc debug'), asked: { how: r.command, output: r.stdout } };
  }
  const r = await runOnNode(cluster.kubeConfig, name, command, { labels });
  return { readings: splitProbeOutput(name, r.output, probes, 'debug pod'), asked: { how: `debug pod ${r.pod} on node ${name}: ${command.join(' ')}`, output: r.output } };
}

/** The digest part of a `name@sha256:…` pullspec. */
export function digestOf(pullspec: string): string | undefined {
  return /@(sha256:[0-9a-f]{64})$/.exec(pullspec)?.[1];
}
