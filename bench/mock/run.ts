/**
 * Benchmarks of the mock API server, measured side by side with a bare Node http server sending the same bytes:
 *   node --import tsx bench/mock/run.ts [--seconds 3] [--objects 10000] [--watchers 100] [--updates 1000]
 * Servers run in child processes; this process is the client. Prints a Markdown section for bench/RESULTS.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => { const i = args.indexOf(`--${name}`); return i >= 0 ? Number(args[i + 1]) : dflt; };
const SECONDS = opt('seconds', 3);
const OBJECTS = opt('objects', 10_000);
const WATCHERS = opt('watchers', 100);
const UPDATES = opt('updates', 1000);
const CONCURRENCY = opt('concurrency', 16);
const ROUNDS = opt('rounds', 5);
const SERVE = fileURLToPath(new URL('./serve.ts', import.meta.url));
const MC = '/apis/machineconfiguration.openshift.io/v1/machineconfigs';

interface Child { proc: ChildProcess; url: string; token: string; readyMs: number; lines: string[] }

function startChild(childArgs: string[]): Promise<Child> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', SERVE, ...childArgs], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines: string[] = [];
    let buf = '';
    let started = false;
    proc.stdout!.on('data', (d) => {
      buf += d;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl); buf = buf.slice(nl + 1);
        if (!started) { started = true; const info = JSON.parse(line); resolve({ proc, lines, ...info }); } else lines.push(line);
      }
    });
    proc.on('exit', (code) => { if (!started) reject(new Error(`benchmark server exited with ${code}`)); });
  });
}

async function memoryOf(child: Child): Promise<{ rss: number; heapUsed: number; cpuMicros: number }> {
  const before = child.lines.length;
  child.proc.stdin!.write('mem\n');
  while (child.lines.length === before) await new Promise((r) => setTimeout(r, 10));
  return JSON.parse(child.lines[child.lines.length - 1]!);
}

function stop(child: Child): Promise<void> {
  return new Promise((resolve) => { child.proc.once('exit', () => resolve()); child.proc.kill('SIGTERM'); });
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function call(base: string, token: string, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; bytes: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (payload) headers['Content-Type'] = contentType;
    const req = request(base + path, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const b = Buffer.concat(chunks as unknown as Uint8Array[]);
        resolve({ status: res.statusCode ?? 0, bytes: b.length, text: b.toString('utf8') });
      });
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** Requests per second of GET path with CONCURRENCY requests in flight for SECONDS seconds, and server CPU per request. */
async function throughput(base: string, token: string, path: string, server?: Child): Promise<{ rps: number; cpuMicrosPerRequest: number }> {
  const cpuBefore = server ? (await memoryOf(server)).cpuMicros : 0;
  let count = 0;
  const deadline = performance.now() + SECONDS * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const r = await call(base, token, 'GET', path);
      if (r.status !== 200) throw new Error(`GET ${path} answered ${r.status}`);
      count++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const rps = count / ((performance.now() - t0) / 1000);
  const cpuAfter = server ? (await memoryOf(server)).cpuMicros : 0;
  return { rps, cpuMicrosPerRequest: (cpuAfter - cpuBefore) / count };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function machineConfig(i: number) {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig',
    metadata: { name: `bench-${String(i).padStart(5, '0')}`, labels: { 'machineconfiguration.openshift.io/role': i % 2 ? 'worker' : 'master' } },
    spec: { osImageURL: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${String(i).padStart(64, '0')}`, config: { ignition: { version: '3.2.0' }, storage: { files: [{ path: `/etc/bench/${i}`, mode: 420, contents: { source: 'data:,hello' } }] } }, kernelArguments: ['nosmt'] },
  };
}

/** 100 watchers on machineconfigs; 1000 sequential updates; latency from sending the update to each watcher's receipt. */
async function watchLatency(base: string, token: string): Promise<{ p50: number; p99: number; max: number; delivered: number }> {
  const rv = JSON.parse((await call(base, token, 'GET', `${MC}?limit=1`)).text).metadata.resourceVersion;
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const watchAgent = new Agent({ keepAlive: false, maxSockets: WATCHERS + 10 });
  const streams: Array<{ destroy(): void }> = [];
  await Promise.all(Array.from({ length: WATCHERS }, () => new Promise<void>((resolve, reject) => {
    const req = request(`${base}${MC}?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3Dbench-00000`, { headers: { Authorization: `Bearer ${token}` }, agent: watchAgent }, (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const now = performance.now();
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl); buf = buf.slice(nl + 1);
          // Only the marker is needed; avoid parsing whole objects in the measuring process.
          const m = /"bench-seq":"(\d+)"/.exec(line);
          if (m && sentAt.has(m[1]!)) latencies.push(now - sentAt.get(m[1]!)!);
        }
      });
      resolve();
    });
    req.on('error', reject);
    req.end();
    streams.push(req);
  })));
  await new Promise((r) => setTimeout(r, 200));
  for (let i = 0; i < UPDATES; i++) {
    const seq = String(i);
    sentAt.set(seq, performance.now());
    const r = await call(base, token, 'PATCH', `${MC}/bench-00000`, { metadata: { annotations: { 'bench-seq': seq } } }, 'application/merge-patch+json');
    if (r.status !== 200) throw new Error(`update ${i} answered ${r.status}: ${r.text}`);
  }
  const expected = WATCHERS * UPDATES;
  const deadline = Date.now() + 10_000;
  while (latencies.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  for (const s of streams) s.destroy();
  watchAgent.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1]!, delivered: latencies.length };
}

async function main(): Promise<void> {
  const lines: string[] = [];
  const log = (s: string) => { console.error(s); lines.push(s); };
  const started = new Date().toISOString();

  // Ready time: in-process startApiServer() with the five CRDs (median of the child's own measurement over 5 starts).
  const readies: number[] = [];
  for (let i = 0; i < 5; i++) {
    for (const mode of ['mock', 'mock-tls']) {
      const c = await startChild([mode]);
      if (mode === 'mock-tls') readies.push(c.readyMs);
      else readies.push(-c.readyMs); // plain HTTP kept apart by sign
      await stop(c);
    }
  }
  const readyTls = median(readies.filter((r) => r > 0));
  const readyHttp = median(readies.filter((r) => r < 0).map((r) => -r));

  const mock = await startChild(['mock']);
  const memEmpty = await memoryOf(mock);
  // Load objects with some concurrency; not a benchmark in itself.
  const tLoad = performance.now();
  for (let i = 0; i < OBJECTS; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, OBJECTS - i) }, (_, k) => call(mock.url, mock.token, 'POST', MC, machineConfig(i + k)).then((r) => {
      if (r.status !== 201) throw new Error(`create answered ${r.status}: ${r.text}`);
    })));
  }
  const loadMs = performance.now() - tLoad;
  const memFull = await memoryOf(mock);

  // LIST of all objects: median of 5, time to the last byte.
  const listTimes: number[] = [];
  let listBytes = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const r = await call(mock.url, mock.token, 'GET', MC);
    listTimes.push(performance.now() - t0);
    listBytes = r.bytes;
  }
  const listMs = median(listTimes);
  // The same LIST as kubectl get asks for it: a Table built from the printer columns (JSONPath per cell).
  const tableTimes: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const r = await new Promise<number>((resolve, reject) => {
      const req = request(`${mock.url}${MC}`, { headers: { Authorization: `Bearer ${mock.token}`, Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
    if (r !== 200) throw new Error(`Table LIST answered ${r}`);
    tableTimes.push(performance.now() - t0);
  }
  const tableMs = median(tableTimes);

  // GET of one object against a bare server sending the same bytes.
  const one = await call(mock.url, mock.token, 'GET', `${MC}/bench-00042`);
  const dir = mkdtempSync(join(tmpdir(), 'bench-mock-'));
  writeFileSync(join(dir, 'object.json'), one.text);
  const bare = await startChild(['bare', join(dir, 'object.json')]);
  await throughput(bare.url, '', '/warmup');
  await throughput(mock.url, mock.token, `${MC}/bench-00042`);
  // Interleaved rounds, medians: the machine is shared, so load from others hits both servers alike.
  const bareRuns: Array<{ rps: number; cpuMicrosPerRequest: number }> = [];
  const mockRuns: Array<{ rps: number; cpuMicrosPerRequest: number }> = [];
  for (let round = 0; round < ROUNDS; round++) {
    bareRuns.push(await throughput(bare.url, '', `${MC}/bench-00042`, bare));
    mockRuns.push(await throughput(mock.url, mock.token, `${MC}/bench-00042`, mock));
  }
  const bareRun = { rps: median(bareRuns.map((r) => r.rps)), cpuMicrosPerRequest: median(bareRuns.map((r) => r.cpuMicrosPerRequest)) };
  const mockRun = { rps: median(mockRuns.map((r) => r.rps)), cpuMicrosPerRequest: median(mockRuns.map((r) => r.cpuMicrosPerRequest)) };
  const bareRps = bareRun.rps, mockRps = mockRun.rps;
  await stop(bare);
  rmSync(dir, { recursive: true, force: true });

  const watch = await watchLatency(mock.url, mock.token);
  await stop(mock);

  // Writes with persistence: every acknowledged write was fdatasync'ed first. Sequential and 50 in flight.
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-mock-data-'));
  const persisted = await startChild(['mock-data', dataDir]);
  const WRITES = Math.min(1000, OBJECTS);
  let t0 = performance.now();
  for (let i = 0; i < WRITES; i++) {
    const r = await call(persisted.url, persisted.token, 'POST', MC, machineConfig(i));
    if (r.status !== 201) throw new Error(`create answered ${r.status}`);
  }
  const sequentialMs = performance.now() - t0;
  t0 = performance.now();
  for (let i = WRITES; i < 2 * WRITES; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, k) => call(persisted.url, persisted.token, 'POST', MC, machineConfig(i + k))));
  }
  const parallelMs = performance.now() - t0;
  await stop(persisted);
  rmSync(dataDir, { recursive: true, force: true });

  log(`### Run of ${started}`);
  log('');
  log(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, shared with other work.`);
  log(`Command: \`node --import tsx bench/mock/run.ts --seconds ${SECONDS} --objects ${OBJECTS} --watchers ${WATCHERS} --updates ${UPDATES} --concurrency ${CONCURRENCY} --rounds ${ROUNDS}\``);
  log('Servers run in child processes over plain HTTP on loopback (HTTPS only for the ready time); this process is the client.');
  log('');
  log('| measure | target | result |');
  log('|---|---|---|');
  log(`| GET one MachineConfig (${one.bytes} B), ${CONCURRENCY} in flight, median of ${ROUNDS} interleaved ${SECONDS} s rounds | ≥ 0.5 × bare | mock ${mockRps.toFixed(0)} req/s vs bare ${bareRps.toFixed(0)} req/s = **${(mockRps / bareRps).toFixed(2)} ×**; server CPU per request: mock ${mockRun.cpuMicrosPerRequest.toFixed(0)} µs vs bare ${bareRun.cpuMicrosPerRequest.toFixed(0)} µs (${(bareRun.cpuMicrosPerRequest / mockRun.cpuMicrosPerRequest).toFixed(2)} ×) |`);
  log(`| LIST ${OBJECTS} MachineConfigs (${(listBytes / 2 ** 20).toFixed(1)} MiB), median of 5 | < 300 ms | **${listMs.toFixed(0)} ms** |`);
  log(`| LIST ${OBJECTS} MachineConfigs as a Table (what \`kubectl get mc\` asks), median of 3 | — | ${tableMs.toFixed(0)} ms |`);
  log(`| ${WATCHERS} watchers × ${UPDATES} updates, send-to-receipt latency | p99 < 20 ms | p50 ${watch.p50.toFixed(2)} ms, **p99 ${watch.p99.toFixed(2)} ms**, max ${watch.max.toFixed(1)} ms; ${watch.delivered}/${WATCHERS * UPDATES} delivered |`);
  log(`| ready with the 5 CRDs installed (startApiServer, median of 5) | < 500 ms | **${readyTls.toFixed(0)} ms** with TLS (CA + keys generated), ${readyHttp.toFixed(0)} ms plain HTTP |`);
  log(`| memory with ${OBJECTS} objects (RSS after GC) | < 300 MB | **${(memFull.rss / 2 ** 20).toFixed(0)} MiB** RSS (heap ${(memFull.heapUsed / 2 ** 20).toFixed(0)} MiB); empty server ${(memEmpty.rss / 2 ** 20).toFixed(0)} MiB |`);
  log(`| (loading ${OBJECTS} objects by POST, 50 in flight) | — | ${(loadMs / 1000).toFixed(1)} s |`);
  log(`| creates with \`dataDir\` (fdatasync before each answer), ${WRITES} sequential / ${WRITES} with 50 in flight | — | ${(WRITES / (sequentialMs / 1000)).toFixed(0)} / ${(WRITES / (parallelMs / 1000)).toFixed(0)} writes/s |`);
  log('');
  console.log(lines.join('\n'));
}

await main();
