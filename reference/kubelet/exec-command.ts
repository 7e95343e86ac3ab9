/**
 * What a command exec'd into a running container does (`kubectl exec POD -c C -- CMD`). The reference runs no
 * container images, so a command runs where it can be answered: on the node's host (host-shell.ts), seen through
 * the place the container mounts the host's root, as the daemon's `/rootfs` or a debug pod's `/host`:
 *   - `chroot MOUNT CMD…` runs CMD on the host, as chroot does;
 *   - any other command runs through the host's shell with paths under MOUNT read as host paths
 *     (`cat /rootfs/proc/cmdline` reads the host's /proc/cmdline); a program the shell does not know exits 127 with
 *     `sh: CMD: not found`, as a real shell does.
 * A container that mounts no host root has nothing the reference can run: its commands exit 126 with a reason.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { runDebugCommand, type HostContext } from './host-shell.js';

export interface ExecResult {
  stdout: string;
  stderr: string;
  exitCode: number;
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

export async function runInContainer(argv: string[], hostMount: string | undefined, host: HostContext): Promise<ExecResult> {
  const program = argv[0] ?? '';
  if (!hostMount) {
    return {
      stdout: '',
      stderr: `${program}: the reference's kubelet stand-in runs exec only in containers that mount the host's root (a hostPath / volume, or the daemon's /rootfs); this container runs no programs of its own\n`,
      exitCode: 126,
    };
  }
  const result = argv[0] === 'chroot' && argv[1] === hostMount
    ? await runDebugCommand(['chroot', '/host', ...argv.slice(2)], host)
    : await runDebugCommand(['chroot', '/host', 'sh', '-c', argv.map((a) => shellQuote(toHostPaths(a, hostMount))).join(' ')], host);
  return { ...splitStreams(result.output, result.exitCode), exitCode: result.exitCode };
}

/** `/rootfs/etc/x` → `/etc/x`, `/rootfs` → `/`, wherever such a path starts a word of the argument. */
function toHostPaths(arg: string, mount: string): string {
  if (mount === '/') return arg;
  const escaped = mount.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return arg.replace(new RegExp(`(^|[\\s'"=:])${escaped}(?:/|(?=$|[\\s'";|&]))`, 'g'), '$1/');
}

/** One word for the host shell's parser (host-shell.ts parseList): single quotes, a quote as '\''. */
function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The programs whose complaints the host shell prints as `PROGRAM: …` lines. */
const DIAGNOSTIC = /^(sh|bash|chroot|cat|stat|uname|systemctl|rpm|rpm-ostree|error): /;

/**
 * The host shell gives one interleaved output, as a container log holds it. A failed command's diagnostics (lines
 * its programs print as `PROGRAM: …`) go to stderr, the rest to stdout; a successful command's output is stdout.
 */
function splitStreams(output: string, exitCode: number): { stdout: string; stderr: string } {
  if (exitCode === 0) return { stdout: output, stderr: '' };
  let stdout = '';
  let stderr = '';
  for (const line of output.split(/(?<=\n)/)) {
    if (DIAGNOSTIC.test(line)) stderr += line;
    else stdout += line;
  }
  return { stdout, stderr };
}
