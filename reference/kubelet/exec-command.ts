/**
 * What a command run in a container on a reference node does (`kubectl exec POD -c C -- CMD`, a debug pod's own
 * command). The reference runs no container images, but the containers that run commands on a real cluster mount
 * the host's root (the daemon's `/rootfs`, a debug pod's `/host`), and the command runs for real over that node's
 * root file system (node-fs/):
 *   - `chroot MOUNT CMD…` runs CMD with the node's root as its root, as chroot does (its exit codes: 127 for a
 *     program that is not there, 126 for one that cannot be run, with coreutils' words);
 *   - any other command runs in a container that sees the node's root at MOUNT and takes its programs from it
 *     (the daemon's image carries the host's RHEL tools).
 * A container that mounts no host root has nothing the reference can run: its commands exit 126 with a reason.
 * The command reads an input when the session or the pod asked for one (`stdin`), and runs on a pseudo-terminal when
 * asked for a TTY; `io.started` hands the session what feeds it.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { startOnNode, type NodeInput, type StartOptions, type TerminalSize } from '../node-fs/node-command.js';
import type { NodeRoots } from '../node-fs/node-roots.js';
import type { HostOs } from './hosts.js';

/** Where a command's output goes, as it comes; and, for one that reads or has a terminal, what feeds it. */
export interface ExecIo {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /** Called once the command runs, with its input (when `streams.stdin`) and its terminal's size. */
  started?(control: CommandControl): void;
}

/** What a session can do to a running command: write its input, end it, resize its terminal. */
export interface CommandControl {
  input?: NodeInput;
  resize(size: TerminalSize): void;
}

/** What the command is given besides its arguments: an input, a terminal. */
export type ExecStreams = Pick<StartOptions, 'stdin' | 'tty'>;

export interface NodeExec {
  node: string;
  os: HostOs;
  roots: NodeRoots;
}

/**
 * Where a container sees the host's root: the mount of a hostPath `/` volume, else `/rootfs` for the daemon's
 * container (the upstream DaemonSet mounts it there; the reference's DaemonSet does not spell the volume out).
 */
export function hostMountOf(pod: V1Pod, container: string): string | undefined {
  const hostRoots = new Set((pod.spec?.volumes ?? []).filter((v) => v.hostPath?.path === '/').map((v) => v.name));
  const spec = pod.spec?.containers?.find((c) => c.name === container);
  const mount = spec?.volumeMounts?.find((m) => hostRoots.has(m.name))?.mountPath;
  if (mount) return mount.replace(/\/+$/, '') || '/';
  return container === 'machine-config-daemon' ? '/rootfs' : undefined;
}

/** Runs `argv` in the container; resolves with its exit status. An aborted `signal` ends the command and all it started. */
export async function runInContainer(
  argv: string[],
  hostMount: string | undefined,
  host: NodeExec,
  io: ExecIo,
  signal?: AbortSignal,
  streams: ExecStreams = {},
): Promise<number> {
  if (!hostMount) {
    io.stderr(Buffer.from(`${argv[0] ?? ''}: the reference's kubelet stand-in runs exec only in containers that mount the host's root (a hostPath / volume, or the daemon's /rootfs); this container runs no programs of its own\n`));
    return 126;
  }
  if (signal?.aborted) return 137;
  const prepared = await host.roots.prepare(host.node, host.os);
  const intoHost = hostMount === '/' || (argv[0] === 'chroot' && argv[1] === hostMount);
  const child = intoHost
    ? startOnNode(prepared, hostMount === '/' ? argv : argv.slice(2), streams)
    : startOnNode(prepared, argv, { ...streams, hostMount });
  const stop = (): void => child.kill();
  signal?.addEventListener('abort', stop, { once: true });
  child.stdout.on('data', (c: Buffer) => io.stdout(c));
  child.stderr.on('data', (c: Buffer) => io.stderr(c));
  const ended = Promise.all([once(child.stdout), once(child.stderr)]);
  io.started?.({ input: child.stdin, resize: (size) => child.resize(size) });
  try {
    const code = await child.exit;
    await ended;
    return code;
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

function once(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
}
