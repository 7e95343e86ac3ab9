/**
 * How the kubelet stand-in runs a pod whose containers are played by a registered program (PROGRAM_ANNOTATION,
 * pod-programs.ts), for restartPolicy Never as an on-cluster build's pod has it: the init containers one after
 * another, then the containers together, each through the program with a log of its own; the pod status moves as a
 * kubelet moves it:
 *   Pending, Initialized False, init containers waiting PodInitializing (`Init:0/1`) → an init container running
 *   (`Init:0/1`) → terminated Completed (exit 0) or Error; a failed init container ends the pod Failed (`Init:Error`)
 *   and its containers never start → Running, Ready → Succeeded (every container exited 0) or Failed.
 * A program name nobody registered is a CreateContainerError naming it on the first container, retried with the
 * kubelet's back-off (10 s doubling to 5 minutes) until the program appears or the pod goes.
 */
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import type { ClusterClock } from '../clock.js';
import { LogSink } from '../workloads/logs.js';
import { PROGRAM_ANNOTATION, type PodProgram, type PodPrograms } from './pod-programs.js';
import { conditions, containerId } from './pod-status.js';

/** The kubelet's image-pull/crash back-off: 10 s doubling, at most 5 minutes (cluster time). */
const RETRY_MS = 10_000;
const MAX_RETRY_MS = 300_000;

export interface ProgramPodHost {
  clock: ClusterClock;
  programs: PodPrograms;
  /** The node the pod is bound to. */
  node: string;
  /** How long creating a container takes (cluster ms). */
  createMs: number;
  /** Fires when the cluster stops. */
  clusterSignal: AbortSignal;
  /** Writes the pod's status (a no-op once the pod has gone); `base` fields (IPs, startTime) are added by the host. */
  writeStatus(status: Record<string, unknown>): Promise<void>;
  /** False once the pod was deleted. */
  alive(): boolean;
  /** Makes a container's log readable (`pods/log`) and gives the kubelet the way to stop it when the pod goes. */
  addContainer(name: string, sink: LogSink, stop: () => void): void;
}

type State = Record<string, unknown>;

interface ContainerStatus {
  name: string;
  image?: string;
  imageID: string;
  containerID?: string;
  ready: boolean;
  restartCount: number;
  started: boolean;
  state: State;
  lastState: State;
}

function waiting(c: V1Container, reason: string, message?: string): ContainerStatus {
  return { name: c.name, image: c.image, imageID: '', ready: false, restartCount: 0, started: false, state: { waiting: { reason, ...(message ? { message } : {}) } }, lastState: {} };
}

const exitedZero = (s: ContainerStatus): boolean => (s.state.terminated as { exitCode?: number } | undefined)?.exitCode === 0;

export async function runProgramPod(host: ProgramPodHost, pod: V1Pod): Promise<void> {
  const { clock } = host;
  const name = pod.metadata?.annotations?.[PROGRAM_ANNOTATION] ?? '';
  const inits = pod.spec?.initContainers ?? [];
  const mains = pod.spec?.containers ?? [];
  const initStatuses = inits.map((c) => waiting(c, 'PodInitializing'));
  const mainStatuses = mains.map((c) => waiting(c, inits.length ? 'PodInitializing' : 'ContainerCreating'));
  const stopped = new AbortController();
  const stop = (): void => stopped.abort();
  host.clusterSignal.addEventListener('abort', stop, { once: true });

  const pending = (): Promise<void> => {
    const done = initStatuses.filter(exitedZero).length === inits.length;
    return host.writeStatus({
      phase: 'Pending',
      conditions: conditions(clock.timestamp(), { initialized: done, ready: false, reason: 'ContainersNotReady', notReady: mains.map((c) => c.name), notInitialized: inits.filter((_, i) => !exitedZero(initStatuses[i]!)).map((c) => c.name) }),
      ...(inits.length ? { initContainerStatuses: initStatuses } : {}),
      containerStatuses: mainStatuses,
    });
  };

  try {
    await pending();
    await clock.sleep(host.createMs, stopped.signal);
    const program = await resolveProgram(host, name, inits[0] ?? mains[0], inits.length ? initStatuses : mainStatuses, pending, stopped.signal);
    if (!program || !host.alive()) return;

    for (let i = 0; i < inits.length; i++) {
      await runContainer(host, pod, program, inits[i]!, true, initStatuses, i, pending, stopped);
      if (!host.alive()) return;
      if (!exitedZero(initStatuses[i]!)) {
        // restartPolicy Never: a failed init container fails the pod; its containers stay waiting, never started
        await host.writeStatus({
          phase: 'Failed',
          conditions: conditions(clock.timestamp(), { initialized: false, ready: false, reason: 'ContainersNotReady', notReady: mains.map((c) => c.name), notInitialized: [inits[i]!.name] }),
          initContainerStatuses: initStatuses,
          containerStatuses: mainStatuses,
        });
        return;
      }
    }

    const running = (): Promise<void> => {
      const allRunning = mainStatuses.every((s) => s.state.running);
      return host.writeStatus({
        phase: 'Running',
        conditions: conditions(clock.timestamp(), { initialized: true, ready: allRunning, reason: 'ContainersNotReady', notReady: mainStatuses.filter((s) => !s.state.running).map((s) => s.name) }),
        ...(inits.length ? { initContainerStatuses: initStatuses } : {}),
        containerStatuses: mainStatuses,
      });
    };
    await Promise.all(mains.map((c, i) => runContainer(host, pod, program, c, false, mainStatuses, i, running, stopped)));
    if (!host.alive()) return;
    const succeeded = mainStatuses.every(exitedZero);
    await host.writeStatus({
      phase: succeeded ? 'Succeeded' : 'Failed',
      conditions: conditions(clock.timestamp(), { initialized: true, ready: false, reason: succeeded ? 'PodCompleted' : 'ContainersNotReady', notReady: succeeded ? undefined : mains.map((c) => c.name) }),
      ...(inits.length ? { initContainerStatuses: initStatuses } : {}),
      containerStatuses: mainStatuses,
    });
  } finally {
    host.clusterSignal.removeEventListener('abort', stop);
  }
}

/** The registered program, waiting (CreateContainerError on `first`) while none of that name is. */
async function resolveProgram(host: ProgramPodHost, name: string, first: V1Container | undefined, statuses: ContainerStatus[], write: () => Promise<void>, signal: AbortSignal): Promise<PodProgram | undefined> {
  for (let delay = RETRY_MS; ; delay = Math.min(MAX_RETRY_MS, delay * 2)) {
    const program = host.programs.get(name);
    if (program || !first || !host.alive() || signal.aborted) return program;
    const known = host.programs.names();
    statuses[0] = waiting(first, 'CreateContainerError', `pod program "${name}" (annotation ${PROGRAM_ANNOTATION}) is not registered with the reference's kubelet; registered: ${known.length ? known.join(', ') : 'none'}`);
    await write();
    await host.clock.sleep(delay, signal);
  }
}

/** Runs one container through the program; its status entry (`statuses[index]`) goes running, then terminated. */
async function runContainer(host: ProgramPodHost, pod: V1Pod, program: PodProgram, container: V1Container, init: boolean, statuses: ContainerStatus[], index: number, write: () => Promise<void>, stopped: AbortController): Promise<void> {
  const { clock } = host;
  const sink = new LogSink(() => clock.nowMs());
  host.addContainer(container.name, sink, () => stopped.abort());
  const id = containerId();
  const startedAt = clock.timestamp();
  const base = { name: container.name, image: container.image, imageID: container.image ?? '', containerID: id, restartCount: 0, lastState: {} };
  statuses[index] = { ...base, ready: !init, started: true, state: { running: { startedAt } } };
  await write();
  let exitCode: number;
  try {
    // a program (a build) takes wall time of its own: it is the kubelet's work, so the cluster clock does not jump
    // over it (the caller's work covers it too; said here so a program never runs outside the clock's accounting)
    exitCode = await clock.busyDuring(() => program({ pod, container, init, node: host.node, write: (text) => sink.write(text), signal: stopped.signal }));
  } catch (error) {
    sink.write((error as Error).message ?? String(error));
    exitCode = 1;
  }
  sink.close();
  const finishedAt = clock.timestamp();
  // an init container that completed counts as ready, as the kubelet reports it
  statuses[index] = { ...base, ready: init && exitCode === 0, started: false, state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt, finishedAt, containerID: id } } };
  // a container's end before the pod's is written by the caller; between containers the next one's start says it
}
