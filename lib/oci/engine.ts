// Finds a Docker-compatible container engine (dockerd, or podman's Docker-compatible API) and checks it answers.
import { existsSync } from 'node:fs';
import type Docker from 'dockerode';
import { EngineUnavailableError } from './errors.js';

export type Engine = Docker;

/**
 * An engine, or how to connect to one when it is first needed: a caller that needs an engine only sometimes (the
 * reference's registry falls back to a container only without the binary; its releases are built only on a cold
 * cache) takes this, so a warm start neither loads dockerode nor asks the engine anything.
 */
export type EngineWhenNeeded = Engine | (() => Promise<Engine | undefined>);

export async function engineOf(given: EngineWhenNeeded | undefined): Promise<Engine | undefined> {
  return typeof given === 'function' ? given() : given;
}

/** Which engine answers behind the Docker Engine API: they differ in tagging on import and in TLS to registries. */
export type EngineKind = 'docker' | 'podman';

export interface EngineIdentity {
  kind: EngineKind;
  /** `Docker Engine 20.10.24+dfsg1` or `Podman 4.3.1`: how messages and reports name it. */
  name: string;
  version: string;
  /** Where it answered, when connectEngine found it. */
  address?: string;
}

const addresses = new WeakMap<Engine, string>();
const identities = new WeakMap<Engine, Promise<EngineIdentity>>();

/** Reads the API's version endpoint: podman's names a "Podman Engine" component, dockerd's an "Engine". */
export function identifyEngine(engine: Engine): Promise<EngineIdentity> {
  let known = identities.get(engine);
  if (!known) {
    known = engine.version().then((v) => {
      const components = (v as { Components?: { Name?: string; Version?: string }[] }).Components ?? [];
      const podman = components.find((c) => /podman/i.test(c.Name ?? ''));
      const version = podman?.Version ?? v.Version ?? 'unknown';
      const kind: EngineKind = podman ? 'podman' : 'docker';
      return { kind, version, name: `${kind === 'podman' ? 'Podman' : 'Docker Engine'} ${version}`, address: addresses.get(engine) };
    }, (): EngineIdentity => ({ kind: 'docker', version: 'unknown', name: 'a Docker-compatible engine (its version endpoint did not answer)', address: addresses.get(engine) }));
    identities.set(engine, known);
  }
  return known;
}

export interface EngineCandidate {
  /** How to show it to a person: `unix:///var/run/docker.sock`, `tcp://127.0.0.1:2375`. */
  address: string;
  options: Docker.DockerOptions;
}

/** Turns a DOCKER_HOST value into dockerode options. Only unix sockets and loopback TCP are accepted. */
export function parseDockerHost(value: string): EngineCandidate {
  if (value.startsWith('unix://')) {
    return { address: value, options: { socketPath: value.slice('unix://'.length) } };
  }
  if (value.startsWith('tcp://') || value.startsWith('http://')) {
    const url = new URL(value.replace(/^tcp:/, 'http:'));
    return {
      address: value,
      options: { host: url.hostname, port: Number(url.port || 2375), protocol: 'http' },
    };
  }
  throw new EngineUnavailableError([
    { address: value, problem: 'DOCKER_HOST must be unix:///path or tcp://host:port' },
  ]);
}

/** The places we look for an engine, in order. */
export function engineCandidates(env: NodeJS.ProcessEnv = process.env): EngineCandidate[] {
  if (env.DOCKER_HOST) return [parseDockerHost(env.DOCKER_HOST)];
  const sockets: string[] = [];
  if (env.XDG_RUNTIME_DIR) sockets.push(`${env.XDG_RUNTIME_DIR}/podman/podman.sock`);
  sockets.push('/run/podman/podman.sock', '/var/run/docker.sock');
  return sockets.map((s) => ({ address: `unix://${s}`, options: { socketPath: s } }));
}

async function pingWithin(engine: Docker, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      engine.ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer to ping within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Connects to the first engine that answers a ping: DOCKER_HOST when set (and then only it), else a podman socket
 * ($XDG_RUNTIME_DIR/podman/podman.sock, /run/podman/podman.sock), else /var/run/docker.sock.
 * Throws EngineUnavailableError listing every address tried and why it failed.
 */
export async function connectEngine(
  opts: { env?: NodeJS.ProcessEnv; pingTimeoutMs?: number } = {},
): Promise<Engine> {
  const tried: { address: string; problem: string }[] = [];
  // dockerode (a 1.2 MB bundle, ~40 ms of CPU to load) only when an engine is asked for: every spec process imports
  // this module through the image helpers, and most never connect
  const { default: Docker } = await import('dockerode');
  for (const candidate of engineCandidates(opts.env)) {
    const socketPath = candidate.options.socketPath;
    if (socketPath && !existsSync(socketPath)) {
      tried.push({ address: candidate.address, problem: 'socket file does not exist' });
      continue;
    }
    const engine = new Docker(candidate.options);
    try {
      await pingWithin(engine, opts.pingTimeoutMs ?? 5000);
      addresses.set(engine, candidate.address);
      return engine;
    } catch (err) {
      tried.push({ address: candidate.address, problem: (err as Error).message });
    }
  }
  throw new EngineUnavailableError(tried);
}
