/**
 * Several `ocp-e2e cluster up` processes started at the same moment, as several users (or CI jobs) of one machine
 * start them, and what each must give its user: a registry that answers with a certificate of its own cluster's CA
 * (the CA in its kubeconfig), a release payload that names only that registry (the report's `oc adm release info`,
 * run with the env file's variables), and an API server that serves its kubeconfig. Stopped, nothing of any may be
 * left: no process, no listening port, no private storage folder, no certs.d entry.
 * Used by test/bin/parallel-clusters.test.ts and bench/reliability/parallel-clusters.ts.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { connect as connectTls } from 'node:tls';
import { execa } from 'execa';
import YAML from 'yaml';
import { certsDirRoots } from '../../../lib/oci/registry-trust.js';
import { clusterUp, type ClusterUp } from '../../support/cli.js';
import { processAlive } from '../../../lib/process/alive.js';

export interface StartedCluster {
  index: number;
  up: ClusterUp;
  /** `cluster up`'s own pid and its children's (the registry binary), seen while it was up. */
  pids: number[];
  /** Every TCP port those processes listened on while up (API server, registry, kubelet endpoint). */
  ports: number[];
  /** `127.0.0.1:PORT` of its registry (the one key of its auth file) and of its API server (its kubeconfig). */
  registry: string;
  api: string;
  /** The CA of its kubeconfig: the cluster's one CA, which signs its API server's and its registry's certificates. */
  caPem: string;
}

export interface ClusterVerdict {
  index: number;
  registry: string;
  /** Empty when everything was right; else each thing that was wrong. */
  problems: string[];
}

/**
 * Starts `count` clusters at once, one `cluster up` process each, all given the same work folder as users share the
 * default one (one gets it, the others work in private folders next to it). Seeds differ, as different users' would.
 */
export async function startClusters(count: number, workDir: string, oc: string, args: string[] = []): Promise<{ started: StartedCluster[]; failures: string[] }> {
  const results = await Promise.allSettled(
    Array.from({ length: count }, (_, index) =>
      clusterUp(['--seed', String(index + 1), ...args], { env: { OCP_E2E_REFERENCE_WORKDIR: workDir } }).then((up) =>
        describeCluster(index, up, oc).catch(async (error: unknown) => {
          await up.stop();
          throw error;
        }),
      ),
    ),
  );
  const started = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failures = results.flatMap((r, i) => (r.status === 'rejected' ? [`cluster ${i}: did not start: ${String((r.reason as Error).message).slice(0, 1500)}`] : []));
  return { started, failures };
}

async function describeCluster(index: number, up: ClusterUp, oc: string): Promise<StartedCluster> {
  const kubeconfig = YAML.parse(await readFile(up.kubeconfig, 'utf8')) as { clusters: { cluster: { server: string; 'certificate-authority-data': string } }[] };
  const { server, 'certificate-authority-data': caData } = kubeconfig.clusters[0]!.cluster;
  const pid = up.process.pid!;
  const pids = [pid, ...(await childrenOf(pid))];
  return { index, up, pids, ports: await listeningPorts(pids), registry: await registryOf(up, oc), api: new URL(server).host, caPem: Buffer.from(caData, 'base64').toString('utf8') };
}

/** The registry its user is given: the one host of the env file's auth file (else the cluster's own record of it). */
async function registryOf(up: ClusterUp, oc: string): Promise<string> {
  if (up.env.REGISTRY_AUTH_FILE) {
    // the keys only: the values are the registry's credentials
    const hosts = Object.keys((JSON.parse(await readFile(up.env.REGISTRY_AUTH_FILE, 'utf8')) as { auths: Record<string, unknown> }).auths);
    if (hosts.length !== 1) throw new Error(`its auth file names ${hosts.length} registries, not one`);
    return hosts[0]!;
  }
  const r = await execa(oc, ['get', 'configmap', '-n', 'kube-system', 'ocp-e2e-reference-cluster', '-o', 'jsonpath={.data.registry}', `--kubeconfig=${up.kubeconfig}`]);
  return r.stdout.trim();
}

async function childrenOf(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  return text.trim().split(/\s+/).filter(Boolean).map(Number);
}

/** Socket inodes in LISTEN state, by local port, from /proc/net/tcp and tcp6. */
async function listeningSockets(): Promise<Map<string, number>> {
  const byInode = new Map<string, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of (await readFile(table, 'utf8').catch(() => '')).split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A') byInode.set(f[9]!, parseInt(f[1]!.split(':').at(-1)!, 16));
    }
  }
  return byInode;
}

/** The TCP ports these processes listen on. */
async function listeningPorts(pids: number[]): Promise<number[]> {
  const sockets = await listeningSockets();
  const ports = new Set<number>();
  for (const pid of pids) {
    for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])) {
      const inode = /^socket:\[(\d+)\]$/.exec(await readlink(`/proc/${pid}/fd/${fd}`).catch(() => ''))?.[1];
      const port = inode ? sockets.get(inode) : undefined;
      if (port) ports.add(port);
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/** The certificate the TLS server at `address` presents, unverified (it is judged against every cluster's CA). */
function servedCertificate(address: string): Promise<X509Certificate> {
  const [host, port] = address.split(':');
  return new Promise((resolve, reject) => {
    const socket = connectTls({ host, port: Number(port), rejectUnauthorized: false }, () => {
      const raw = socket.getPeerCertificate().raw;
      socket.end();
      resolve(new X509Certificate(new Uint8Array(raw)));
    });
    socket.setTimeout(5000, () => socket.destroy(new Error('no TLS answer within 5 s')));
    socket.once('error', reject);
  });
}

/** Problems with the certificate served at `address`: it must be signed by cluster `c`'s CA, and by no other's. */
async function servesOwnCa(what: string, address: string, c: StartedCluster, all: StartedCluster[]): Promise<string[]> {
  try {
    const cert = await servedCertificate(address);
    const signers = all.filter((o) => cert.verify(new X509Certificate(o.caPem).publicKey)).map((o) => o.index);
    if (signers.length === 1 && signers[0] === c.index) return [];
    return [`its ${what} ${address} served a certificate signed by ${signers.length ? `cluster ${signers.join(', ')}'s CA` : 'none of the clusters\' CAs'}, not its own`];
  } catch (error) {
    return [`its ${what} ${address}: ${(error as Error).message}`];
  }
}

/** Everything a user of cluster `c` reaches through its env file and kubeconfig, checked with the real `oc`. */
export async function verifyCluster(c: StartedCluster, all: StartedCluster[], oc: string): Promise<ClusterVerdict> {
  const problems = [...(await servesOwnCa('registry', c.registry, c, all)), ...(await servesOwnCa('API server', c.api, c, all))];
  const lacking = ['SSL_CERT_FILE', 'REGISTRY_AUTH_FILE', 'DOCKER_CONFIG'].filter((name) => !c.up.env[name]);
  if (lacking.length) problems.push(`its env file lacks ${lacking.join(', ')}`);
  const env = { ...c.up.env, KUBECONFIG: c.up.kubeconfig };
  const cv = await execa(oc, ['get', 'clusterversion', 'version', '-o', 'jsonpath={.status.desired.image}'], { env, reject: false, all: true, timeout: 60_000 });
  if (cv.exitCode !== 0) return { index: c.index, registry: c.registry, problems: [...problems, `oc get clusterversion with its kubeconfig exited ${cv.exitCode}: ${String(cv.all).slice(0, 600)}`] };
  const payload = cv.stdout.trim();
  if (!payload.startsWith(`${c.registry}/`)) problems.push(`its ClusterVersion's release ${payload} is not on its registry ${c.registry}`);
  // the report's step 1, in the environment the env file gives: the payload is read, and every image it names listed
  const info = await execa(oc, ['adm', 'release', 'info', '--pullspecs', payload], { env, reject: false, all: true, timeout: 60_000 });
  if (info.exitCode !== 0) {
    problems.push(`oc adm release info ${payload} exited ${info.exitCode}: ${String(info.all).slice(0, 600)}`);
  } else {
    const pullspecs = [...info.stdout.matchAll(/\s(\S+@sha256:[0-9a-f]{64})/g)].map((m) => m[1]!);
    if (!pullspecs.length) problems.push(`oc adm release info ${payload} listed no image`);
    const foreign = pullspecs.filter((p) => !p.startsWith(`${c.registry}/`));
    if (foreign.length) problems.push(`its release payload names images on another registry: ${foreign.join(', ')}`);
  }
  return { index: c.index, registry: c.registry, problems };
}

/** Private storage folders next to the shared work folder (each a cluster's while it runs). */
export async function privateFolders(workDir: string): Promise<string[]> {
  const names = await readdir(path.dirname(workDir)).catch(() => [] as string[]);
  return names.filter((n) => n.startsWith(`${path.basename(workDir)}-private-`)).map((n) => path.join(path.dirname(workDir), n));
}

/** Stops every cluster (SIGTERM, as at Ctrl-C) and lists everything any of them left behind. */
export async function stopClusters(started: StartedCluster[], workDir: string): Promise<string[]> {
  await Promise.allSettled(started.map((c) => c.up.stop()));
  const left: string[] = [];
  const stillListening = new Set((await listeningSockets()).values());
  for (const c of started) {
    const exit = (await c.up.process).exitCode;
    if (exit !== 0) left.push(`cluster ${c.index}: cluster up exited ${exit} on SIGTERM`);
    for (const pid of c.pids.filter(processAlive)) left.push(`cluster ${c.index}: process ${pid} still runs`);
    // a port taken again by some other process since would show here too: the ports are kernel-chosen, so rarely
    for (const port of c.ports.filter((p) => stillListening.has(p))) left.push(`cluster ${c.index}: port ${port} still listens`);
    for (const root of certsDirRoots()) if (existsSync(path.join(root, c.registry))) left.push(`cluster ${c.index}: ${path.join(root, c.registry)} left`);
  }
  for (const dir of await privateFolders(workDir)) left.push(`private storage folder ${dir} left`);
  return left;
}
