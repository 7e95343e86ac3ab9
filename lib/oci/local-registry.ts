// A real OCI registry (CNCF distribution 2.8) on loopback for local targets: Debian's `docker-registry` binary when
// installed, else a `registry:2` container when that image is already in the engine. Nothing is pulled.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import YAML from 'yaml';
import { engineOf, type Engine, type EngineWhenNeeded } from './engine.js';
import { RegistryUnavailableError } from './errors.js';
import { fetchFailureCode, fetchTrusting } from './tls.js';

export const REGISTRY_BINARY = '/usr/bin/docker-registry';
export const REGISTRY_IMAGE = 'registry:2';

export interface LocalRegistry {
  /** `127.0.0.1:PORT`, usable as the registry part of image references. */
  address: string;
  /** `binary` or `container`: how it runs. */
  kind: 'binary' | 'container';
  /** PEM of the CA its certificate chains to, when it serves HTTPS. */
  caPem?: string;
  stop(): Promise<void>;
}

/** A serving certificate for the registry (PEM files) and the CA that signed it. */
export interface RegistryTls {
  certFile: string;
  keyFile: string;
  caPem: string;
}

export interface LocalRegistryOptions {
  /** Where blobs and manifests live; reuse it to keep images across starts. */
  storageDir: string;
  /** Port to listen on; default the port this storage folder had last time when free, else a free one. */
  port?: number;
  /** htpasswd file (bcrypt entries) to require basic auth; default no auth. */
  htpasswdFile?: string;
  /** Serve HTTPS with this certificate; default plain HTTP (which only dockerd accepts without configuration). */
  tls?: RegistryTls;
  /** Engine, only needed for the container fallback (asked for only then). */
  engine?: EngineWhenNeeded;
  /** Binary to run; default /usr/bin/docker-registry. */
  binary?: string;
  /** Image for the container fallback; default registry:2 (must already be in the engine: nothing is pulled). */
  image?: string;
  /** How long to wait for `/v2/` to answer. */
  readyTimeoutMs?: number;
}

export async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * The port a storage folder was last served on, when it is free again, else a new free port (remembered). Image
 * references stored in the registry (a release payload names its OS images as `127.0.0.1:PORT/...@sha256:...`) stay
 * valid across restarts only if the address does not change.
 */
async function stickyPort(storageDir: string): Promise<number> {
  const file = path.join(storageDir, 'port');
  const previous = Number((await readFile(file, 'utf8').catch(() => '')).trim());
  if (previous > 0 && previous < 65536 && (await portIsFree(previous))) return previous;
  const port = await freeLoopbackPort();
  await writeFile(file, `${port}\n`);
  return port;
}

/** The registry's own configuration file (distribution's YAML format). */
export function registryConfig(opts: { rootDirectory: string; listen: string; htpasswdFile?: string; tls?: RegistryTls }): object {
  return {
    version: 0.1,
    log: { level: 'warn', accesslog: { disabled: true } },
    storage: {
      filesystem: { rootdirectory: opts.rootDirectory },
      delete: { enabled: true },
      // Blob descriptors are cached in memory so repeated HEADs of the same digests stay cheap.
      cache: { blobdescriptor: 'inmemory' },
    },
    http: {
      addr: opts.listen,
      headers: { 'X-Content-Type-Options': ['nosniff'] },
      ...(opts.tls ? { tls: { certificate: opts.tls.certFile, key: opts.tls.keyFile } } : {}),
    },
    ...(opts.htpasswdFile ? { auth: { htpasswd: { realm: 'ocp-e2e', path: opts.htpasswdFile } } } : {}),
  };
}

async function waitForV2(address: string, tls: RegistryTls | undefined, timeoutMs: number, stillRunning: () => string | undefined): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // the registry this process started serves the certificate of the CA it was given: the probe trusts that CA, not
  // the environment's bundle (parsing SSL_CERT_FILE's ~140 roots cost every cluster start ~35 ms)
  const fetch = tls ? fetchTrusting([tls.caPem], {}) : globalThis.fetch;
  const url = `${tls ? 'https' : 'http'}://${address}/v2/`;
  let lastProblem = 'no answer yet';
  while (Date.now() < deadline) {
    const exited = stillRunning();
    if (exited) throw new RegistryUnavailableError(`Local registry stopped while starting: ${exited}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      // 401 is an answer too: the registry is up and wants credentials.
      if (res.status === 200 || res.status === 401) return;
      lastProblem = `HTTP ${res.status}`;
    } catch (err) {
      lastProblem = `${(err as Error).message}: ${fetchFailureCode(err)}`;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new RegistryUnavailableError(`Local registry at ${address} did not answer /v2/ within ${timeoutMs} ms (${lastProblem})`);
}

/**
 * A registry left running on this storage by a process killed with SIGKILL (its pid is in `registry.pid`) is
 * stopped, but only when it is an orphan (parent pid 1) serving a config file of this folder: a registry whose
 * owner is alive is never touched.
 */
export async function stopOrphanedRegistry(storageDir: string): Promise<void> {
  const pidFile = path.join(storageDir, 'registry.pid');
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
  if (!(pid > 0)) return;
  const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
  const ppid = Number(/^PPid:\s*(\d+)/m.exec(await readFile(`/proc/${pid}/status`, 'utf8').catch(() => ''))?.[1]);
  if (ppid === 1 && cmdline.some((arg) => arg.startsWith(path.join(storageDir, 'registry-config-')))) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
  }
  await rm(pidFile, { force: true });
}

/** The whole environment the registry binary runs with: a PATH, and nothing a user set can reach it. */
export function registryEnvironment(): NodeJS.ProcessEnv {
  return { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' };
}

/** A registry that could not bind its port: another process took it between the probe and the bind. */
function lostPortRace(error: unknown): boolean {
  return error instanceof RegistryUnavailableError && /address already in use/i.test(error.message);
}

async function startBinary(binary: string, opts: LocalRegistryOptions, port: number): Promise<LocalRegistry> {
  const storageDir = path.resolve(opts.storageDir);
  await stopOrphanedRegistry(storageDir);
  const address = `127.0.0.1:${port}`;
  const configPath = path.join(storageDir, `registry-config-${port}.yml`);
  await writeFile(
    configPath,
    YAML.stringify(registryConfig({ rootDirectory: path.join(storageDir, 'data'), listen: address, htpasswdFile: opts.htpasswdFile, tls: opts.tls })),
  );
  // distribution reads every REGISTRY_* variable as a configuration override, and users of oc and podman keep
  // REGISTRY_AUTH_FILE set: the registry gets an environment of its own, never the user's.
  const child: ChildProcess = spawn(binary, ['serve', configPath], { stdio: ['ignore', 'ignore', 'pipe'], env: registryEnvironment() });
  if (child.pid) await writeFile(path.join(storageDir, 'registry.pid'), `${child.pid}\n`);
  let stderrTail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString()).slice(-2000);
  });
  let exitInfo: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      exitInfo = `exit code ${code ?? signal}; stderr: ${stderrTail.trim() || '(empty)'}`;
      resolve();
    });
    child.on('error', (err) => {
      exitInfo = err.message;
      resolve();
    });
  });
  try {
    await waitForV2(address, opts.tls, opts.readyTimeoutMs ?? 10000, () => exitInfo);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    address,
    kind: 'binary',
    caPem: opts.tls?.caPem,
    async stop() {
      if (exitInfo) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
      await rm(path.join(storageDir, 'registry.pid'), { force: true });
    },
  };
}

async function hasLocalImage(engine: Engine, name: string): Promise<boolean> {
  try {
    await engine.getImage(name).inspect();
    return true;
  } catch {
    return false;
  }
}

async function startContainer(engine: Engine, opts: LocalRegistryOptions, port: number): Promise<LocalRegistry> {
  const storageDir = path.resolve(opts.storageDir, 'data');
  await mkdir(storageDir, { recursive: true });
  const binds = [`${storageDir}:/var/lib/registry`];
  const env = ['REGISTRY_STORAGE_DELETE_ENABLED=true'];
  if (opts.htpasswdFile) {
    binds.push(`${path.resolve(opts.htpasswdFile)}:/auth/htpasswd:ro`);
    env.push('REGISTRY_AUTH=htpasswd', 'REGISTRY_AUTH_HTPASSWD_REALM=ocp-e2e', 'REGISTRY_AUTH_HTPASSWD_PATH=/auth/htpasswd');
  }
  if (opts.tls) {
    binds.push(`${path.resolve(opts.tls.certFile)}:/certs/tls.crt:ro`, `${path.resolve(opts.tls.keyFile)}:/certs/tls.key:ro`);
    env.push('REGISTRY_HTTP_TLS_CERTIFICATE=/certs/tls.crt', 'REGISTRY_HTTP_TLS_KEY=/certs/tls.key');
  }
  const container = await engine.createContainer({
    Image: opts.image ?? REGISTRY_IMAGE,
    Env: env,
    Labels: { 'ocp-e2e.io/local-registry': 'true' },
    ExposedPorts: { '5000/tcp': {} },
    HostConfig: { Binds: binds, PortBindings: { '5000/tcp': [{ HostIp: '127.0.0.1', HostPort: String(port) }] }, AutoRemove: false },
  });
  await container.start();
  const address = `127.0.0.1:${port}`;
  let gone: string | undefined;
  try {
    await waitForV2(address, opts.tls, opts.readyTimeoutMs ?? 15000, () => gone);
  } catch (err) {
    await container.remove({ force: true }).catch(() => undefined);
    throw err;
  }
  return {
    address,
    kind: 'container',
    caPem: opts.tls?.caPem,
    async stop() {
      gone = 'stopped';
      await container.remove({ force: true });
    },
  };
}

/**
 * Starts a registry on 127.0.0.1 with filesystem storage under `storageDir` (delete enabled) and waits until `/v2/`
 * answers. Throws RegistryUnavailableError when neither the binary nor the `registry:2` image is available.
 */
export async function startLocalRegistry(opts: LocalRegistryOptions): Promise<LocalRegistry> {
  await mkdir(opts.storageDir, { recursive: true });
  const binary = opts.binary ?? REGISTRY_BINARY;
  const port = opts.port ?? (await stickyPort(opts.storageDir));
  if (existsSync(binary)) {
    // A free port is probed, then bound by another process: between the two, a registry (or any server) of another
    // cluster starting at the same moment can take it. A chosen port is retried with a new one; a given one is not.
    for (let attempt = 1; ; attempt++) {
      const tryPort = attempt === 1 ? port : await freeLoopbackPort();
      try {
        const registry = await startBinary(binary, opts, tryPort);
        if (!opts.port && tryPort !== port) await writeFile(path.join(opts.storageDir, 'port'), `${tryPort}\n`);
        return registry;
      } catch (error) {
        if (opts.port !== undefined || attempt >= 5 || !lostPortRace(error)) throw error;
      }
    }
  }
  const image = opts.image ?? REGISTRY_IMAGE;
  const engine = await engineOf(opts.engine);
  if (engine && (await hasLocalImage(engine, image))) return startContainer(engine, opts, port);
  throw new RegistryUnavailableError(
    `No local registry available: ${binary} is not installed` +
      (engine ? ` and the image ${image} is not in the engine` : ` (and no engine was given to run the ${image} image)`) +
      `. Install it with \`apt-get install docker-registry\` (Debian/Ubuntu) or load the ${image} image into the engine ` +
      '(`docker load`; nothing is pulled from the internet).',
  );
}
