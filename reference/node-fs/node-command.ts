/**
 * Runs a command as a real process over a node's tree (node-roots.ts), in namespaces of its own so that nothing it
 * mounts or sets is seen outside it: a mount namespace where the node's root is put together, a UTS namespace with
 * the node's hostname, a PID namespace so that the whole command dies with its first process. As root that is
 * `unshare --mount --uts --pid`; otherwise the same inside a user namespace whose root is the caller
 * (`unshare --user --map-root-user`), which a developer's laptop allows (Linux 5.11 or later for the overlay).
 *
 * Inside, a host shell mounts the node's root at mnt/: an overlay of the node's upper/ over its booted deployment,
 * read-only except /etc and /var (as RHCOS's /usr is), a fresh /tmp, the node's proc/ and run/, the machine's /dev.
 * Then, as a debug pod's `chroot /host CMD` or the daemon's `chroot /rootfs CMD` do, CMD runs with that root
 * (`chroot` of the machine: its exit codes 125-127 and words are coreutils'); or, for a command run in a container
 * that mounts the host's root at MOUNT (`cat /rootfs/proc/cmdline` in the daemon's container), a container root is
 * made of a tmpfs with the node's root at MOUNT and the container's programs (/usr, /bin, …) taken from it, as the
 * daemon's image carries the same RHEL tools as the host; a program it does not have is runc's exit 127.
 *
 * On a terminal the command is made a session leader inside the namespaces, with the terminal as its controlling
 * one (`setsid --ctty`), as a container's first process is: a shell's job control then finds its terminal's process
 * groups, which it cannot when they belong to the caller outside the PID namespace (dash's "Cannot set tty process group").
 *
 * The command's environment is only PATH, HOME, LANG and TERM: nothing of the reference's own leaks to a node.
 * The command runs in its own process group; kill() ends that group, and the PID namespace takes everything
 * the command started with it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';
import { PassThrough, type Readable } from 'node:stream';

/** The exit status of a setup that failed before the command could start (unshare's and mount's own are 1 and 32). */
export const SETUP_FAILED = 125;

const SETUP = String.raw`
m() { mount "$@" || { echo "node $NODE_NAME: its root could not be put together: mount $*" >&2; exit 125; }; }
D="$NODE_DIR"
R="$D/mnt"
m -t overlay overlay -o "lowerdir=$NODE_LOWER,upperdir=$NODE_DIR/upper,workdir=$NODE_DIR/work$NODE_OVERLAY_OPTS" "$R"
for d in etc var; do m --bind "$R/$d" "$R/$d"; done
m -o remount,bind,ro "$R"
m -t tmpfs -o mode=1777 tmpfs "$R/tmp"
m --bind "$NODE_DIR/run" "$R/run"
m --bind "$NODE_DIR/proc" "$R/proc"
m --rbind /dev "$R/dev"
hostname "$NODE_NAME" || exit 125
ce="$CONTAINER_EXEC"
mount_at="$NODE_MOUNT"
on_tty=""
[ -n "$NODE_TTY" ] && on_tty="setsid --wait --ctty"
unset NODE_DIR NODE_LOWER NODE_MOUNT NODE_OVERLAY_OPTS CONTAINER_EXEC NODE_TTY
if [ -z "$mount_at" ]; then unset NODE_NAME; exec $on_tty chroot "$R" "$@"; fi
C="$D/ctr"
m -t tmpfs tmpfs "$C"
mkdir -p "$C$mount_at" "$C/tmp" "$C/dev" "$C/proc" "$C/run" || exit 125
m --rbind "$R" "$C$mount_at"
rel=$(echo "$mount_at" | sed 's|^/*||')
for d in bin sbin lib lib64 usr etc var; do
  if [ -e "$R/$d" ] || [ -L "$R/$d" ]; then ln -s "$rel/$d" "$C/$d"; fi
done
m --rbind /dev "$C/dev"
m --bind "$D/proc" "$C/proc"
unset NODE_NAME
exec $on_tty chroot "$C" /bin/sh -c "$ce" container-exec "$@"
`;

/** A container's command is exec'd, not run by a shell: a program not on PATH is the runtime's 127, in runc's words. */
const CONTAINER_EXEC = `command -v "$1" >/dev/null 2>&1 || { echo 'exec: "'"$1"'": executable file not found in $PATH' >&2; exit 127; }; exec "$@"`;

/** A node's tree, ready for a command (node-roots.ts prepares it). */
export interface PreparedNode {
  node: string;
  /** The booted deployment's tree: the overlay's lower layer. */
  lower: string;
  /** The node's folder (upper/, work/, proc/, run/, mnt/, ctr/). */
  dir: string;
}

export interface Mechanism {
  /** unshare's options before the command. */
  unshare: string[];
  /** Extra overlay mount options (a user namespace's overlay keeps its metadata in user.* attributes). */
  overlayOptions: string;
}

let found: Mechanism | Error | undefined;

/** How commands get their namespaces on this machine, or why they cannot (said once, in words). */
export function mechanism(): Mechanism {
  found ??= detect();
  if (found instanceof Error) throw found;
  return found;
}

/**
 * The first way that works here: as root plain namespaces, else (not root, or root without CAP_SYS_ADMIN, as in an
 * unprivileged container) a user namespace. Tried once per process with `true`.
 */
function detect(): Mechanism | Error {
  const base = ['--mount', '--uts', '--pid', '--fork', '--kill-child', '--propagation', 'private'];
  const candidates: Array<Mechanism & { name: string }> = [
    ...(process.getuid?.() === 0 ? [{ name: 'as root', unshare: base, overlayOptions: '' }] : []),
    { name: 'in a user namespace', unshare: ['--user', '--map-root-user', ...base], overlayOptions: ',userxattr' },
  ];
  const refusals: string[] = [];
  for (const { name, ...candidate } of candidates) {
    const probe = spawnSync('unshare', [...candidate.unshare, 'true'], { encoding: 'utf8' });
    if (probe.status === 0) return candidate;
    refusals.push(`${name}: ${probe.error ? probe.error.message : (probe.stderr || `exit ${probe.status}`).trim()}`);
  }
  return new Error(
    'the reference runs node commands as real processes in Linux namespaces: as root with `unshare --mount --uts --pid`, ' +
      'otherwise in a user namespace (`unshare --user --map-root-user --mount …`, util-linux), whose overlay needs Linux 5.11 or later. ' +
      `This machine refuses both (${refusals.join('; ')}): run as root with CAP_SYS_ADMIN (a privileged container), or allow unprivileged user namespaces ` +
      '(sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 kernel.apparmor_restrict_unprivileged_userns=0; in a container, a seccomp profile that allows unshare).',
  );
}

export interface NodeProcess {
  stdout: Readable;
  /** The command's standard error; under a terminal it is empty, as the terminal carries both. */
  stderr: Readable;
  /** The exit status: the command's, 128+N for a signal N. */
  exit: Promise<number>;
  /** Ends the command and everything it started. */
  kill(): void;
  /** What the command reads, when it was started with an input; undefined when it reads nothing (/dev/null). */
  stdin?: NodeInput;
  /** Gives the command's terminal a new size; nothing for a command without one. */
  resize(size: TerminalSize): void;
}

/** A command's input: bytes as they come, then its end (under a terminal, a hang-up, as when a terminal closes). */
export interface NodeInput {
  write(chunk: Buffer): void;
  end(): void;
}

export interface TerminalSize {
  cols: number;
  rows: number;
}

export interface StartOptions {
  /** Undefined runs the command with the node's root as its root (chroot /host ARGV); a path runs it in a container that sees the node's root there. */
  hostMount?: string;
  /** The command reads an input the caller writes (exec's and attach's stdin). */
  stdin?: boolean;
  /** The command runs on a terminal of this size (exec's and a pod's `tty`): output and errors come through it together. */
  tty?: TerminalSize;
}

/** The terminal a TTY request gets when its client has not said a size yet (the kubelet's runtime uses the same). */
export const DEFAULT_TERMINAL: TerminalSize = { cols: 80, rows: 24 };

/** Starts `argv` on the node, with what `opts` gives it: where it sees the node, an input, a terminal. */
export function startOnNode(prepared: PreparedNode, argv: string[], opts: StartOptions = {}): NodeProcess {
  const how = mechanism();
  const program = argv.length ? argv : ['/bin/sh', '-i'];
  const args = [...how.unshare, '/bin/sh', '-c', SETUP, 'node-setup', ...program];
  const env = {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: '/root',
    LANG: 'C',
    TERM: opts.tty ? 'xterm' : 'dumb',
    SHELL: '/bin/sh',
    NODE_DIR: prepared.dir,
    NODE_LOWER: path.resolve(prepared.lower),
    NODE_NAME: prepared.node,
    NODE_MOUNT: opts.hostMount === '/' ? '' : (opts.hostMount ?? ''),
    NODE_OVERLAY_OPTS: how.overlayOptions,
    CONTAINER_EXEC,
    NODE_TTY: opts.tty ? '1' : '',
  };
  return opts.tty ? startOnTerminal(args, env, opts.tty) : startWithPipes(args, env, !!opts.stdin);
}

function startWithPipes(args: string[], env: Record<string, string>, withInput: boolean): NodeProcess {
  const child: ChildProcess = spawn('unshare', args, { detached: true, stdio: [withInput ? 'pipe' : 'ignore', 'pipe', 'pipe'], env });
  let ended = false;
  const exit = new Promise<number>((resolve) => {
    child.once('error', () => resolve(SETUP_FAILED));
    child.once('exit', (code, signal) => {
      ended = true;
      resolve(code ?? 128 + (signal ? signalNumber(signal) : 0));
    });
  });
  const input = child.stdin;
  // a command that ends without reading all its input is no error of the session's
  input?.on('error', () => undefined);
  return {
    stdout: child.stdout!,
    stderr: child.stderr!,
    exit,
    kill: () => {
      if (!ended) killGroup(child.pid, 'SIGKILL');
    },
    stdin: input ? { write: (chunk) => { if (!input.destroyed) input.write(chunk); }, end: () => { if (!input.destroyed) input.end(); } } : undefined,
    resize: () => undefined,
  };
}

/**
 * The command on a pseudo-terminal (node-pty): the terminal is the session leader's, so a hang-up or kill reaches
 * the whole group, and the PID namespace takes the rest.
 */
function startOnTerminal(args: string[], env: Record<string, string>, size: TerminalSize): NodeProcess {
  const term = loadPty().spawn('unshare', args, { name: 'xterm', cols: size.cols, rows: size.rows, env, encoding: null });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stderr.end();
  let ended = false;
  // node-pty with `encoding: null` hands out Buffers, though its typings say string
  term.onData((data) => stdout.write(data as unknown as Buffer));
  const exit = new Promise<number>((resolve) => {
    term.onExit(({ exitCode, signal }) => {
      ended = true;
      stdout.end();
      resolve(signal ? 128 + signal : exitCode);
    });
  });
  return {
    stdout,
    stderr,
    exit,
    kill: () => {
      if (!ended) killGroup(term.pid, 'SIGKILL');
    },
    stdin: {
      write: (chunk) => { if (!ended) term.write(chunk as unknown as string); },
      end: () => { if (!ended) killGroup(term.pid, 'SIGHUP'); },
    },
    resize: ({ cols, rows }) => {
      if (!ended && cols > 0 && rows > 0) term.resize(cols, rows);
    },
  };
}

type PtyModule = typeof import('node-pty');
let pty: PtyModule | undefined;

/** node-pty is a native addon that `npm ci` builds (node-gyp: python3, make, g++); without it a TTY cannot be had, and says so. */
function loadPty(): PtyModule {
  if (pty) return pty;
  try {
    pty = createRequire(import.meta.url)('node-pty') as PtyModule;
    return pty;
  } catch (error) {
    throw new Error(
      `a TTY on a reference node needs the native module node-pty, which did not load (${(error as Error).message.split('\n')[0]}); ` +
        '`npm ci` builds it with node-gyp (python3, make and g++ must be installed)',
    );
  }
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

function signalNumber(signal: NodeJS.Signals): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };
  return numbers[signal] ?? 0;
}
