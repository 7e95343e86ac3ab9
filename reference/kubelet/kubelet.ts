/**
 * The kubelet stand-in of every simulated node: it runs the pods bound to its node and reports their phases and
 * container states through the pod status, as a kubelet does (Pending/ContainerCreating, then Running and Ready, or
 * terminated with the command's exit code). What a container runs:
 *   - a reference component (its pod names it in COMPONENT_ANNOTATION): runs until the pod goes, its log is the
 *     component's log (ComponentLogs);
 *   - a command pod (a debug pod, restartPolicy Never): its command runs for real over the node's root file system
 *     (exec-command.ts, node-fs/) and the container ends with its exit code;
 *   - a program pod (its pod names a registered program in PROGRAM_ANNOTATION, pod-programs.ts): init containers then
 *     containers, each played by the program (program-pod.ts), as an on-cluster image build's pod;
 *   - anything else: the container cannot be created (the reference has no container runtime), said in its status.
 * Container output is kept per container and served to the API server's `pods/log` by log-server.ts.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { AbortedError } from '../clock.js';
import type { Controller, ControllerContext } from '../context.js';
import type { KubeObject } from '../../lib/kube/client.js';
import type { Informer } from '../../lib/kube/informer.js';
import type { ComponentLogs } from '../workloads/component-logs.js';
import { COMPONENT_ANNOTATION, type ComponentName } from '../workloads/components.js';
import { klogLine, LogSink } from '../workloads/logs.js';
import type { NodeRoots } from '../node-fs/node-roots.js';
import { hostMountOf, runInContainer, type NodeExec } from './exec-command.js';
import type { NodeHosts } from './hosts.js';
import { AttachPoint } from './attach-point.js';
import { DEFAULT_TERMINAL } from '../node-fs/node-command.js';
import { conditions, containerId } from './pod-status.js';
import { PROGRAM_ANNOTATION, type PodPrograms } from './pod-programs.js';
import { runProgramPod } from './program-pod.js';

type Pod = V1Pod & KubeObject;
type Node = V1Node & KubeObject;

/** How long a container takes to be created (image present, sandbox set up), cluster time. */
const CREATE_MS = 3_000;
/** A command still running after this much wall time is reported Running before it ends (the status sync period). */
const STATUS_SYNC_WALL_MS = 1000;

const NOT_RUNNABLE =
  'the reference cluster has no container runtime: its kubelet stand-in runs only the cluster\'s own components and node debug commands (`chroot /host CMD`)';

interface RunningContainer {
  name: string;
  sink: LogSink;
  stop?: () => void;
  /** A container started with an input (`stdin: true`): clients attach to its process here. */
  attach?: AttachPoint;
}

interface RunningPod {
  uid: string;
  namespace: string;
  name: string;
  node: string;
  containers: Map<string, RunningContainer>;
}

export interface KubeletOptions {
  hosts: NodeHosts;
  /** Each node's root file system, where commands run. */
  roots: NodeRoots;
  components: ComponentLogs;
  /** The programs that play program pods' containers; whoever creates such pods registers them here. */
  programs: PodPrograms;
}

export class Kubelets implements Controller {
  private pods!: Informer<Pod>;
  private nodes!: Informer<Node>;
  private readonly running = new Map<string, RunningPod>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly ctx: ControllerContext,
    private readonly options: KubeletOptions,
  ) {}

  setup(): void {
    this.pods = this.ctx.informers.for<Pod>('Pod');
    this.nodes = this.ctx.informers.for<Node>('Node');
    this.pods.onChange((type, pod) => {
      if (type === 'delete') this.stopPod(pod.metadata.uid!);
      else this.consider(pod);
    });
  }

  start(): void {
    for (const pod of this.pods.list()) this.consider(pod);
  }

  async stop(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    for (const uid of [...this.running.keys()]) this.stopPod(uid);
  }

  /** The output of one container, for the log server; undefined when the kubelet has no such container. */
  containerLog(namespace: string, podName: string, container: string): { sink?: LogSink; pod?: RunningPod } {
    for (const pod of this.running.values()) {
      if (pod.namespace !== namespace || pod.name !== podName) continue;
      return { pod, sink: pod.containers.get(container)?.sink };
    }
    return {};
  }

  /** Where clients attach to a running container that takes input; undefined for one that takes none. */
  attachPoint(namespace: string, podName: string, container: string): AttachPoint | undefined {
    return this.containerLog(namespace, podName, container).pod?.containers.get(container)?.attach;
  }

  /** The pod as the API shows it now (for the log server's "waiting to start" answers). */
  podFromApi(namespace: string, name: string): Pod | undefined {
    return this.pods.get(name, namespace);
  }

  /** The node a command exec'd into one of its containers runs on (exec-server.ts). */
  nodeExec(node: string): NodeExec {
    return { node, os: this.options.hosts.get(node), roots: this.options.roots };
  }

  private consider(pod: Pod): void {
    const uid = pod.metadata.uid!;
    const nodeName = pod.spec?.nodeName;
    if (!nodeName || this.running.has(uid) || pod.metadata.deletionTimestamp) return;
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return; // finished before a restart of ours
    if (!this.nodes.get(nodeName)) return; // no such simulated machine: the pod stays Pending, as with a lost node
    const record: RunningPod = { uid, namespace: pod.metadata.namespace!, name: pod.metadata.name!, node: nodeName, containers: new Map() };
    this.running.set(uid, record);
    // starting a pod, and a command pod's whole run, is the kubelet's work: the cluster clock does not jump over it
    const task = this.ctx.clock.busyDuring(() => this.runPod(pod, record))
      .catch((error) => {
        if (error instanceof AbortedError || this.ctx.signal.aborted) return;
        this.ctx.log('kubelet', `pod ${record.namespace}/${record.name}: ${(error as Error).message}`);
      })
      .finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }

  private stopPod(uid: string): void {
    const record = this.running.get(uid);
    if (!record) return;
    this.running.delete(uid);
    for (const c of record.containers.values()) {
      c.stop?.();
      c.sink.close();
    }
  }

  private async runPod(pod: Pod, record: RunningPod): Promise<void> {
    const { clock, signal } = this.ctx;
    const node = this.nodes.get(record.node);
    const hostIP = node?.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
    const started = clock.timestamp();
    const containers = pod.spec?.containers ?? [];
    const base = {
      hostIP,
      podIP: pod.spec?.hostNetwork ? hostIP : podIp(record.uid),
      podIPs: [{ ip: pod.spec?.hostNetwork ? hostIP : podIp(record.uid) }],
      startTime: started,
      qosClass: 'Burstable',
    };
    if (pod.metadata.annotations?.[PROGRAM_ANNOTATION] !== undefined) return this.runProgram(pod, record, base);
    await this.writeStatus(record, {
      ...base,
      phase: 'Pending',
      conditions: conditions(started, { initialized: true, ready: false, reason: 'ContainersNotReady', notReady: containers.map((c) => c.name) }),
      containerStatuses: containers.map((c) => ({ name: c.name, image: c.image, imageID: '', ready: false, restartCount: 0, started: false, state: { waiting: { reason: 'ContainerCreating' } }, lastState: {} })),
    });
    await clock.sleep(CREATE_MS, signal);
    if (!this.running.has(record.uid)) return;

    const component = pod.metadata.annotations?.[COMPONENT_ANNOTATION] as ComponentName | undefined;
    const command = [...(containers[0]?.command ?? []), ...(containers[0]?.args ?? [])];
    if (component) return this.runComponent(pod, record, component, base);
    if (command[0] === 'chroot' || pod.spec?.restartPolicy === 'Never') return this.runCommand(pod, record, command, base);
    const now = clock.timestamp();
    await this.writeStatus(record, {
      ...base,
      phase: 'Pending',
      conditions: conditions(now, { initialized: true, ready: false, reason: 'ContainersNotReady', notReady: containers.map((c) => c.name) }),
      containerStatuses: containers.map((c) => ({ name: c.name, image: c.image, imageID: '', ready: false, restartCount: 0, started: false, state: { waiting: { reason: 'CreateContainerError', message: NOT_RUNNABLE } }, lastState: {} })),
    });
  }

  private async runProgram(pod: Pod, record: RunningPod, base: Record<string, unknown>): Promise<void> {
    await runProgramPod({
      clock: this.ctx.clock,
      programs: this.options.programs,
      node: record.node,
      createMs: CREATE_MS,
      clusterSignal: this.ctx.signal,
      writeStatus: (status) => this.writeStatus(record, { ...base, ...status }),
      alive: () => this.running.has(record.uid),
      addContainer: (name, sink, stop) => { record.containers.set(name, { name, sink, stop }); },
    }, pod);
  }

  private async runComponent(pod: Pod, record: RunningPod, component: ComponentName, base: Record<string, unknown>): Promise<void> {
    const { clock } = this.ctx;
    const now = clock.timestamp();
    const containers = pod.spec?.containers ?? [];
    containers.forEach((c, i) => {
      const sink = new LogSink(() => clock.nowMs());
      const running: RunningContainer = { name: c.name, sink };
      if (i === 0) {
        sink.write(klogLine(clock.nowMs(), 'I', 'start.go', `Version: ${envOf(c, 'RELEASE_VERSION') ?? envOf(c, 'RELEASE_IMAGE') ?? c.image} (${component} on node ${record.node})`));
        running.stop = this.options.components.attach(component, record.node, sink);
      } else sink.write(`${clock.timestamp()} [${c.name}] listening on ${(c.command ?? []).find((a) => a.startsWith('--https-address=')) ?? ':9001'}`);
      record.containers.set(c.name, running);
    });
    await this.writeStatus(record, {
      ...base,
      phase: 'Running',
      conditions: conditions(now, { initialized: true, ready: true }),
      containerStatuses: containers.map((c) => ({
        name: c.name, image: c.image, imageID: c.image, containerID: containerId(), ready: true, restartCount: 0, started: true,
        state: { running: { startedAt: now } }, lastState: {},
      })),
    });
  }

  private async runCommand(pod: Pod, record: RunningPod, command: string[], base: Record<string, unknown>): Promise<void> {
    const { clock } = this.ctx;
    const containers = pod.spec?.containers ?? [];
    const main = containers[0]!;
    const sink = new LogSink(() => clock.nowMs());
    const stopped = new AbortController();
    const attach = main.stdin ? new AttachPoint(main.stdinOnce ?? false) : undefined;
    record.containers.set(main.name, { name: main.name, sink, stop: () => stopped.abort(), attach });
    const startedAt = clock.timestamp();
    const id = containerId();
    // the container log holds stdout and stderr interleaved, line by line as they come
    const log = new LineBuffer((line) => sink.write(line));
    const logIo = { stdout: (c: Buffer) => log.push(c), stderr: (c: Buffer) => log.push(c) };
    const io = attach ? attach.containerIo(logIo) : logIo;
    // an interactive container (oc debug's shell) reads what attached clients send, on a terminal if it asked for one
    const streams = { stdin: !!main.stdin, tty: main.tty ? DEFAULT_TERMINAL : undefined };
    // the debug image has no programs of its own the reference could run: a command outside chroot /host runs
    // in a container that sees the host there
    const hostMount = hostMountOf(pod, main.name) ?? (command[0] === 'chroot' ? command[1] : undefined);
    const run = runInContainer(command, hostMount, this.nodeExec(record.node), io, stopped.signal, streams)
      .catch((error: Error) => {
        log.push(Buffer.from(`${error.message}\n`));
        return 126;
      })
      .finally(() => attach?.finish());
    // A short command has ended by the kubelet's next status sync: the API never shows it Running, as with a real one.
    const early = await Promise.race([run.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), STATUS_SYNC_WALL_MS))]);
    if (!early && this.running.has(record.uid)) {
      await this.writeStatus(record, {
        ...base,
        phase: 'Running',
        conditions: conditions(startedAt, { initialized: true, ready: true }),
        containerStatuses: [{ name: main.name, image: main.image, imageID: main.image, containerID: id, ready: true, restartCount: 0, started: true, state: { running: { startedAt } }, lastState: {} }],
      });
    }
    const exitCode = await run;
    if (!this.running.has(record.uid)) return;
    log.end();
    sink.close();
    const finishedAt = clock.timestamp();
    const reason = exitCode === 0 ? 'Completed' : 'Error';
    await this.writeStatus(record, {
      ...base,
      phase: exitCode === 0 ? 'Succeeded' : 'Failed',
      conditions: conditions(finishedAt, { initialized: true, ready: false, reason: 'PodCompleted' }),
      containerStatuses: [{
        name: main.name, image: main.image, imageID: main.image, containerID: id, ready: false, restartCount: 0, started: false,
        state: { terminated: { exitCode, reason, startedAt, finishedAt, containerID: id } }, lastState: {},
      }],
    });
  }

  private async writeStatus(record: RunningPod, status: Record<string, unknown>): Promise<void> {
    if (!this.running.has(record.uid) || this.ctx.signal.aborted) return;
    try {
      await this.ctx.client.patchStatus('Pod', record.name, status, record.namespace);
    } catch (error) {
      if ((error as { status?: number }).status === 404) return; // deleted meanwhile
      throw error;
    }
  }
}

/** Bytes to whole lines (a log line never holds half of a write); end() gives what is left without a newline. */
class LineBuffer {
  private partial = '';

  constructor(private readonly line: (text: string) => void) {}

  push(chunk: Buffer): void {
    const text = this.partial + chunk.toString('utf8');
    const cut = text.lastIndexOf('\n');
    this.partial = cut < 0 ? text : text.slice(cut + 1);
    // the newline stays: LogSink.write drops exactly one at the end, so an empty line before it is kept
    if (cut >= 0) this.line(text.slice(0, cut + 1));
  }

  end(): void {
    if (this.partial) this.line(this.partial);
    this.partial = '';
  }
}

function envOf(container: { env?: Array<{ name: string; value?: string }> }, name: string): string | undefined {
  return container.env?.find((e) => e.name === name)?.value;
}

/** A pod-network address derived from the pod's uid (10.128.0.0/14, as OpenShift SDN's default). */
function podIp(uid: string): string {
  const h = Buffer.from(uid.replace(/-/g, '').slice(0, 6), 'hex');
  return `10.${128 + ((h[0] ?? 0) & 3)}.${h[1] ?? 0}.${Math.max(2, h[2] ?? 2)}`;
}
