/** Shared set-up for the mock API server's tests: a server with the project's CRDs and a kubectl bound to it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { startApiServer, type ApiServerOptions, type RunningApiServer } from '../../mock/index.js';
import { openShiftCrds } from '../../reference/crds/index.js';

export interface TestServer {
  server: RunningApiServer;
  kubeconfig: string;
  dir: string;
  /** Runs kubectl against the server; resolves with the result even on a non-zero exit. */
  kubectl(args: string[], input?: string): Promise<{ stdout: string; stderr: string; exitCode: number }>;
  /** Like kubectl() but throws with kubectl's stderr when it fails. */
  kubectlOk(args: string[], input?: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startTestServer(opts: ApiServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mock-test-'));
  const server = await startApiServer({ crds: openShiftCrds(), ...opts });
  const kubeconfig = join(dir, 'kubeconfig');
  await server.writeKubeconfig(kubeconfig);
  const kubectl = async (args: string[], input?: string) => {
    const r = await execa('kubectl', args, {
      input, reject: false, timeout: 30_000,
      env: { KUBECONFIG: kubeconfig, HOME: dir, KUBECACHEDIR: join(dir, 'cache') },
    });
    return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1 };
  };
  return {
    server, kubeconfig, dir, kubectl,
    async kubectlOk(args, input) {
      const r = await kubectl(args, input);
      if (r.exitCode !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.exitCode}): ${r.stderr}`);
      return r.stdout;
    },
    async stop() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A TestServer for the tests of the calling describe: started before them, stopped after them. The object returned
 * stands for the server started then (use it inside the tests and hooks, not while the describe is being declared).
 */
export function useTestServer(opts: ApiServerOptions = {}): TestServer {
  let started: TestServer | undefined;
  before(async () => { started = await startTestServer(opts); });
  after(async () => { await started?.stop(); });
  const current = (): TestServer => {
    if (!started) throw new Error('useTestServer: the server is used before its before() hook ran');
    return started;
  };
  return {
    get server() { return current().server; },
    get kubeconfig() { return current().kubeconfig; },
    get dir() { return current().dir; },
    kubectl: (args, input) => current().kubectl(args, input),
    kubectlOk: (args, input) => current().kubectlOk(args, input),
    stop: () => current().stop(),
  };
}

/** Polls until fn returns a truthy value, or fails with the last value seen. */
export async function eventually<T>(fn: () => T | Promise<T>, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last value: ${JSON.stringify(last)}`);
}

export const MC_WORKER = `kind: MachineConfig
apiVersion: machineconfiguration.openshift.io/v1
metadata:
  labels:
    machineconfiguration.openshift.io/role: "worker"
  name: "tc-54183-new-os-image-upgrade-worker"
spec:
  osImageURL: "quay.io/sregidor/sregidor-os:mco_layering"
`;

export interface HttpResult { status: number; headers: Record<string, string | string[] | undefined>; text: string; json: any }

/** One HTTP request to the server (http or https with its CA), with the server's token unless told otherwise. */
export async function request(server: RunningApiServer, method: string, path: string, opts: {
  body?: unknown; contentType?: string; accept?: string; token?: string | null; rawBody?: Buffer | string;
} = {}): Promise<HttpResult> {
  const { request: httpRequest } = await import(server.url.startsWith('https') ? 'node:https' : 'node:http');
  const payload = opts.rawBody ?? (opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body));
  const headers: Record<string, string> = { Accept: opts.accept ?? 'application/json' };
  if (opts.token !== null) headers.Authorization = `Bearer ${opts.token ?? server.token}`;
  if (payload !== undefined) {
    headers['Content-Type'] = opts.contentType ?? 'application/json';
    // Node's client sends a DELETE body without framing unless told its length.
    headers['Content-Length'] = String(typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, server.url), { method, headers, ca: server.caPem || undefined }, (res: any) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks as unknown as Uint8Array[]).toString('utf8');
        let json: any;
        try { json = JSON.parse(text); } catch { json = undefined; }
        resolve({ status: res.statusCode, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

export interface WatchEvent { type: string; object: any }

/** An open watch: collects events as they arrive; `ended` resolves when the server closes the stream. */
export async function openWatch(server: RunningApiServer, path: string): Promise<{ events: WatchEvent[]; ended: Promise<void>; close(): void }> {
  const { request: httpRequest } = await import(server.url.startsWith('https') ? 'node:https' : 'node:http');
  return new Promise((resolve, reject) => {
    const events: WatchEvent[] = [];
    let endResolve!: () => void;
    const ended = new Promise<void>((r) => { endResolve = r; });
    const req = httpRequest(new URL(path, server.url), { headers: { Authorization: `Bearer ${server.token}` }, ca: server.caPem || undefined }, (res: any) => {
      if (res.statusCode !== 200) { reject(new Error(`watch ${path} answered ${res.statusCode}`)); res.resume(); return; }
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim()) events.push(JSON.parse(line));
        }
      });
      res.on('end', () => endResolve());
      res.on('close', () => endResolve());
      resolve({ events, ended, close: () => req.destroy() });
    });
    req.on('error', (e: Error) => { endResolve(); if ((e as any).code !== 'ECONNRESET') reject(e); });
    req.end();
  });
}
