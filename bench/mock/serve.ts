/**
 * Benchmark child: a mock API server with the OpenShift CRDs on plain HTTP ("mock-data <dir>": persisting to
 * <dir>), or (with "bare <file>") a bare Node
 * http server answering every request with the bytes of <file>, for the side-by-side comparison.
 * Prints one JSON line {url, token, readyMs} when serving; answers "mem" on stdin with its memory and CPU time used so far.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';

const mode = process.argv[2] ?? 'mock';

function reportMemory(): void {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const cpu = process.cpuUsage();
  console.log(JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, cpuMicros: cpu.user + cpu.system }));
}
createInterface({ input: process.stdin }).on('line', (line) => { if (line.trim() === 'mem') reportMemory(); });

if (mode === 'bare') {
  const body = readFileSync(process.argv[3]!);
  const server = createServer((req, res) => {
    // Same status, headers and bytes as the mock's GET of the object, nothing else.
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Content-Length': String(body.length) });
    res.end(body);
    req.resume();
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => {
    console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: '', readyMs: 0 }));
  });
} else {
  const { startApiServer } = await import('../../mock/index.js');
  const { openShiftCrds } = await import('../../reference/crds/index.js');
  const crds = openShiftCrds();
  const t0 = performance.now();
  const dataDir = mode === 'mock-data' ? process.argv[3] : undefined;
  const server = await startApiServer({ tls: mode === 'mock-tls', crds, token: 'bench-token', dataDir });
  const readyMs = performance.now() - t0;
  console.log(JSON.stringify({ url: server.url, token: server.token, readyMs }));
}
