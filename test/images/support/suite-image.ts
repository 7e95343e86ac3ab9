/**
 * The suite's image as CI uses it: built by images/ocp-e2e/build.sh (once per engine and content: the script skips a
 * build whose inputs are unchanged) and run with a read-only root file system. Runs against a cluster go through
 * images/ocp-e2e/README.md's own lines (./readme-run.ts), as a person runs them.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const BUILD_SCRIPT = join(ROOT, 'images', 'ocp-e2e', 'build.sh');
const DOCKER_SOCKET = '/var/run/docker.sock';

export type Engine = 'docker' | 'podman';

const built = new Map<Engine, Promise<string>>();

/** The image's tag, built with this engine on the host's node (no base image can be pulled here). */
export function suiteImage(engine: Engine): Promise<string> {
  let tag = built.get(engine);
  if (!tag) {
    tag = execa('bash', [BUILD_SCRIPT, '--engine', engine, '--node-image', 'host'], { cwd: ROOT, timeout: 600_000 }).then((r) => String(r.stdout).trim().split('\n').at(-1)!);
    built.set(engine, tag);
  }
  return tag;
}

/**
 * Where an image built by this engine can be run, and under which tag. Podman cannot start containers on this
 * machine (`error setting rlimit type 7` in these sandboxes, as test/lib/oci/support/container-engine.ts says): then
 * its image is handed to dockerd unchanged (podman save, docker load, under a tag of its own) and run there, saying so.
 */
export async function runnableImage(builder: Engine): Promise<{ engine: Engine; tag: string }> {
  const tag = await suiteImage(builder);
  if (builder === 'docker') return { engine: builder, tag };
  const probe = await execa('podman', ['run', '--rm', '--entrypoint', 'true', tag], { reject: false, all: true });
  if (probe.exitCode === 0) return { engine: builder, tag };
  const handed = `${tag}-podman`;
  await execa('podman', ['tag', tag, handed]);
  await execa('bash', ['-c', 'podman save "$1" | docker load -q', '-', handed]);
  console.log(`      note: podman cannot run containers on this machine (${String(probe.all).trim().split('\n').at(-1)}); its image runs on dockerd as ${handed}`);
  return { engine: 'docker', tag: handed };
}

/** The source commit the build wrote into the image's label (org.opencontainers.image.revision). */
export async function imageRevision(engine: Engine, tag: string): Promise<string> {
  const r = await execa(engine, ['image', 'inspect', '--format', '{{index .Config.Labels "org.opencontainers.image.revision"}}', tag]);
  return String(r.stdout).trim();
}

export interface ImageRun {
  exitCode: number;
  output: string;
  /** From `docker run` to the first line of the first spec (its describe title), ms; undefined when none came. */
  toFirstSpecMs?: number;
}

export interface RunOptions {
  entrypoint?: string;
  /** `--user UID:GID`: the image must run under any uid, as OpenShift and `docker run --user "$(id -u):$(id -g)"` run it. */
  user?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** `docker run` (or podman) of the image: host network, read-only root, a tmpfs /tmp, the image's own user unless `user`. */
export async function runImage(engine: Engine, tag: string, args: string[], options: RunOptions = {}): Promise<ImageRun> {
  const flags = ['run', '--rm', '--network', 'host', '--read-only', '--tmpfs', '/tmp'];
  if (options.user) flags.push('--user', options.user);
  if (options.entrypoint) flags.push('--entrypoint', options.entrypoint);
  for (const [k, v] of Object.entries(options.env ?? {})) flags.push('-e', `${k}=${v}`);
  return timed(engine, [...flags, tag, ...args], { timeoutMs: options.timeoutMs });
}

/** Runs the image (directly, or a shell line that does), noting when its first spec began. */
export async function timed(file: string, args: string[], options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<ImageRun> {
  const child = execa(file, args, {
    reject: false,
    all: true,
    stdin: 'ignore',
    timeout: options.timeoutMs ?? 300_000,
    // A given environment is the whole environment: a person's shell has not the test runner's variables.
    ...(options.env ? { env: options.env, extendEnv: false } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const started = Date.now();
  let toFirstSpecMs: number | undefined;
  let seen = '';
  child.all?.on('data', (d: Buffer) => {
    seen += d.toString('utf8');
    // The console stamps each line (2026-12-07T07:49:23Z) unless OCP_E2E_NO_TIMESTAMPS is set.
    if (toFirstSpecMs === undefined && /^(\S+Z )?\s*\[sig-mco\]/m.test(seen)) toFirstSpecMs = Date.now() - started;
  });
  const r = await child;
  return { exitCode: r.exitCode ?? -1, output: String(r.all ?? ''), toFirstSpecMs };
}

/** The group of the host's docker socket: a person who runs docker is in it, and the README's line adds it in the container. */
export function dockerSocketGroup(): number {
  return statSync(DOCKER_SOCKET).gid;
}
