/**
 * The suite's image as CI uses it: built by images/ocp-e2e/build.sh (once per engine and content: the script skips a
 * build whose inputs are unchanged), run with a read-only root file system against a cluster whose kubeconfig, CA
 * bundle and registry credentials are mounted read-only, reports written to $ARTIFACT_DIR.
 */
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const BUILD_SCRIPT = join(ROOT, 'images', 'ocp-e2e', 'build.sh');
/** The image's user (Containerfile USER): the files it must read are given to it. */
const IMAGE_UID = 1001;
const IMAGE_GID = 0;
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

/** What `cluster up --env-out` gives a shell, copied for the image's user and mounted read-only under /var/run/ocp-e2e. */
export interface ClusterFiles {
  mounts: string[];
  env: Record<string, string>;
  kubeconfig: string;
  /** Deletes the copies (they hold credentials). */
  remove(): void;
}

const IN_IMAGE = '/var/run/ocp-e2e';

/**
 * Copies the kubeconfig, the CA bundle and the registry credentials (mode 0600, root's) into a folder of the image's
 * user, as a pod's secret volume would give them, and names their mounts and the environment pointing at them.
 */
export function stageClusterFiles(kubeconfig: string, env: Record<string, string>): ClusterFiles {
  const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-image-cluster-'));
  const give = (from: string, to: string, mode: number) => {
    copyFileSync(from, join(dir, to));
    chmodSync(join(dir, to), mode);
    chownSync(join(dir, to), IMAGE_UID, IMAGE_GID);
  };
  mkdirSync(join(dir, 'docker'));
  chownSync(join(dir, 'docker'), IMAGE_UID, IMAGE_GID);
  give(kubeconfig, 'kubeconfig', 0o600);
  give(env.SSL_CERT_FILE!, 'ca-bundle.crt', 0o644);
  give(env.REGISTRY_AUTH_FILE!, join('docker', 'config.json'), 0o600);
  return {
    mounts: [
      '-v', `${join(dir, 'kubeconfig')}:${IN_IMAGE}/kubeconfig:ro`,
      '-v', `${join(dir, 'ca-bundle.crt')}:${IN_IMAGE}/ca-bundle.crt:ro`,
      '-v', `${join(dir, 'docker')}:${IN_IMAGE}/docker:ro`,
    ],
    env: {
      SSL_CERT_FILE: `${IN_IMAGE}/ca-bundle.crt`,
      REGISTRY_AUTH_FILE: `${IN_IMAGE}/docker/config.json`,
      DOCKER_CONFIG: `${IN_IMAGE}/docker`,
    },
    kubeconfig: `${IN_IMAGE}/kubeconfig`,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A folder the image's user may write, mounted as $ARTIFACT_DIR. */
export function artifactDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-image-artifacts-'));
  chmodSync(dir, 0o777);
  return dir;
}

export interface RunOptions {
  cluster?: ClusterFiles;
  artifacts?: string;
  /** The engine socket for specs that build the layered image (the host's dockerd), with its group. */
  engineSocket?: boolean;
  entrypoint?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** `docker run` (or podman) of the image: host network, read-only root, a tmpfs /tmp, the image's own user. */
export async function runImage(engine: Engine, tag: string, args: string[], options: RunOptions = {}): Promise<ImageRun> {
  const flags = ['run', '--rm', '--network', 'host', '--read-only', '--tmpfs', '/tmp'];
  if (options.cluster) {
    flags.push(...options.cluster.mounts);
    for (const [k, v] of Object.entries(options.cluster.env)) flags.push('-e', `${k}=${v}`);
  }
  if (options.artifacts) flags.push('-v', `${options.artifacts}:/artifacts`, '-e', 'ARTIFACT_DIR=/artifacts');
  if (options.engineSocket) flags.push('-v', `${DOCKER_SOCKET}:${DOCKER_SOCKET}`, '--group-add', String(statSync(DOCKER_SOCKET).gid));
  if (options.entrypoint) flags.push('--entrypoint', options.entrypoint);
  for (const [k, v] of Object.entries(options.env ?? {})) flags.push('-e', `${k}=${v}`);
  const started = Date.now();
  let toFirstSpecMs: number | undefined;
  const child = execa(engine, [...flags, tag, ...args], { reject: false, all: true, timeout: options.timeoutMs ?? 300_000, stdin: 'ignore' });
  let seen = '';
  child.all?.on('data', (d: Buffer) => {
    seen += d.toString('utf8');
    if (toFirstSpecMs === undefined && /^\s*\[sig-mco\]/m.test(seen)) toFirstSpecMs = Date.now() - started;
  });
  const r = await child;
  return { exitCode: r.exitCode ?? -1, output: String(r.all ?? ''), toFirstSpecMs };
}
