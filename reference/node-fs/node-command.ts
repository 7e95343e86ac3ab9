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
 * The command's environment is only PATH, HOME, LANG and TERM: nothing of the reference's own leaks to a node.
 * The command runs in its own process group; kill() ends that group, and the PID namespace takes everything
 * the command started with it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Readable } from 'node:stream';

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
unset NODE_DIR NODE_LOWER NODE_MOUNT NODE_OVERLAY_OPTS CONTAINER_EXEC
if [ -z "$mount_at" ]; then unset NODE_NAME; exec chroot "$R" "$@"; fi
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
exec chroot "$C" /bin/sh -c "$ce" container-exec "$@"
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
  stderr: Readable;
  /** The exit status: the command's, 128+N for a signal N. */
  exit: Promise<number>;
  /** Ends the command and everything it started. */
  kill(): void;
}

/**
 * Starts `argv` on the node: `hostMount` undefined runs it with the node's root as its root (chroot /host ARGV);
 * a mount path runs it in a container that sees the node's root there.
 */
export function startOnNode(prepared: PreparedNode, argv: string[], hostMount?: string): NodeProcess {
  const how = mechanism();
  const program = argv.length ? argv : ['/bin/sh', '-i'];
  const child: ChildProcess = spawn('unshare', [...how.unshare, '/bin/sh', '-c', SETUP, 'node-setup', ...program], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      HOME: '/root',
      LANG: 'C',
      TERM: 'dumb',
      SHELL: '/bin/sh',
      NODE_DIR: prepared.dir,
      NODE_LOWER: path.resolve(prepared.lower),
      NODE_NAME: prepared.node,
      NODE_MOUNT: hostMount === '/' ? '' : (hostMount ?? ''),
      NODE_OVERLAY_OPTS: how.overlayOptions,
      CONTAINER_EXEC,
    },
  });
  let ended = false;
  const exit = new Promise<number>((resolve) => {
    child.once('error', () => resolve(SETUP_FAILED));
    child.once('exit', (code, signal) => {
      ended = true;
      resolve(code ?? 128 + (signal ? signalNumber(signal) : 0));
    });
  });
  return {
    stdout: child.stdout!,
    stderr: child.stderr!,
    exit,
    kill: () => {
      if (ended || child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

function signalNumber(signal: NodeJS.Signals): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };
  return numbers[signal] ?? 0;
}
