/**
 * What a node booted and what is installed in it, asked on the node itself, the same way on every target: one debug
 * pod per node and check running `chroot /host sh -c 'rpm-ostree status --json; echo <mark>; rpm -q PKG...'` —
 * through `oc debug node/N` when `oc` is installed, otherwise the same privileged pod created through the API
 * (debug-pod.ts) and its log read. Both feed the same parsers.
 */
import { hasCli, oc } from './cli.js';
import type { Cluster } from './cluster.js';
import { runOnNode } from './debug-pod.js';
import type { Node } from './types.js';

export interface BootedImage {
  /** The image the booted deployment came from, without the ostree transport prefix. */
  image: string;
  /** `sha256:<hex>` of the booted image when known. */
  digest?: string;
  /** How the node was asked: `oc debug node/…`, or a debug pod created through the API. */
  source: 'oc debug' | 'debug pod';
}

export interface NodeOs {
  booted: BootedImage;
  /** Per asked package: its NVR, or undefined when it is not installed in the booted image. */
  packages: Record<string, string | undefined>;
  /** How the node was asked (the `oc debug` command line, or the debug pod), and what it printed: for the report. */
  asked: { how: string; output: string };
}

interface RpmOstreeDeployment {
  booted?: boolean;
  'container-image-reference'?: string;
  'container-image-reference-digest'?: string;
  'custom-origin'?: string[];
  origin?: string;
}

/** Strips `ostree-unverified-registry:` / `ostree-remote-registry:<remote>:` / `pivot://` style prefixes. */
export function stripTransport(reference: string): string {
  return reference
    .replace(/^ostree-remote-(registry|image):[^:/]+:/, '')
    .replace(/^ostree-[a-z-]+:/, '')
    .replace(/^(docker|registry|pivot):\/\//, '');
}

/** Parses `rpm-ostree status --json` and returns the booted deployment's image. */
export function parseRpmOstreeStatus(json: string, source: BootedImage['source']): BootedImage {
  let status: { deployments?: RpmOstreeDeployment[] };
  try {
    status = JSON.parse(json) as { deployments?: RpmOstreeDeployment[] };
  } catch {
    throw new Error(`rpm-ostree status is not JSON: ${json.slice(0, 200)}`);
  }
  const booted = status.deployments?.find((d) => d.booted);
  if (!booted) throw new Error(`rpm-ostree status lists no booted deployment (${status.deployments?.length ?? 0} deployments)`);
  const reference = booted['container-image-reference'] ?? booted['custom-origin']?.[0] ?? booted.origin;
  if (!reference) throw new Error('the booted deployment has no container-image-reference: it was not deployed from an image');
  const image = stripTransport(reference);
  const digest = booted['container-image-reference-digest'] ?? /@(sha256:[0-9a-f]{64})$/.exec(image)?.[1];
  return { image, digest, source };
}

/** Whether package `name` is in an `rpm -q`/`rpm -qa` style listing of name-version-release[.arch] lines. */
export function packageInList(listing: string[], name: string): string | undefined {
  // NVR: the name may itself contain dashes; version and release never do.
  return listing
    .map((l) => l.trim().replace(/\.(x86_64|aarch64|ppc64le|s390x|noarch)$/, ''))
    .find((nvr) => {
      const m = /^(.+)-([^-]+)-([^-]+)$/.exec(nvr);
      return m !== null && m[1] === name;
    });
}

/** Separates the two answers in the one debug pod's output. */
const MARK = '--- ocp-e2e: rpm -q ---';
const PACKAGE_NAME = /^[A-Za-z0-9._+-]+$/;

/** The shell list the debug pod runs on the host (exported for the tests). */
export function nodeOsScript(packages: string[]): string {
  for (const p of packages) if (!PACKAGE_NAME.test(p)) throw new Error(`not a package name: ${JSON.stringify(p)}`);
  return packages.length ? `rpm-ostree status --json; echo '${MARK}'; rpm -q ${packages.join(' ')}` : 'rpm-ostree status --json';
}

/** Reads the two answers out of the debug pod's output; says what the node printed when they are not there. */
export function parseNodeOsOutput(node: string, output: string, packages: string[], source: BootedImage['source']): Omit<NodeOs, 'asked'> {
  const [statusPart = '', rpmPart = ''] = output.split(`${MARK}\n`);
  if (packages.length && !output.includes(MARK)) {
    throw new Error(`node ${node}: the debug pod's output does not hold the rpm-ostree and rpm answers: ${output.trim().slice(-400) || '(no output)'}`);
  }
  const jsonStart = statusPart.indexOf('{');
  const booted = parseRpmOstreeStatus(jsonStart >= 0 ? statusPart.slice(jsonStart) : statusPart, source);
  const listing = rpmPart.split('\n');
  return { booted, packages: Object.fromEntries(packages.map((p) => [p, packageInList(listing, p)])) };
}

/** What `oc` prints when the API server failed for a moment (a rolling API server, a 5xx): worth asking again. */
const TRANSIENT_API_ERROR = /InternalError|Internal error occurred|ServiceUnavailable|TooManyRequests|the server is currently unable|connection refused|connection reset|i\/o timeout|TLS handshake timeout|GOAWAY|unexpected EOF/i;
const OC_DEBUG_ATTEMPTS = 4;

/**
 * `oc debug node/N -- CMD`. oc itself does not retry: a passing API error would fail the check although the node is
 * fine, so a run whose stderr names one is repeated, with a growing pause, a bounded number of times.
 */
async function ocDebug(name: string, command: string[], kubeconfig: string): Promise<{ command: string; stdout: string }> {
  for (let attempt = 1; ; attempt++) {
    // `oc debug` without a terminal prints the log and exits 1 when the command did not exit 0 (rpm -q of a missing package)
    const r = await oc(['debug', `node/${name}`, '--', ...command], { kubeconfig, timeoutMs: 300_000, allowFailure: true });
    if (r.exitCode === 0 || r.stdout.includes('"deployments"')) return r;
    const last = r.stderr.trim().split('\n').pop() ?? '';
    if (attempt >= OC_DEBUG_ATTEMPTS || !TRANSIENT_API_ERROR.test(r.stderr)) {
      throw new Error(`\`${r.command}\` exited ${r.exitCode}${attempt > 1 ? ` (attempt ${attempt} of ${OC_DEBUG_ATTEMPTS})` : ''}: ${last}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** (attempt - 1)));
  }
}

/** One debug pod on `node`: its booted image, and which of `packages` it has. */
export async function readNodeOs(cluster: Cluster, kubeconfig: string, node: Node, packages: string[] = []): Promise<NodeOs> {
  const name = node.metadata?.name ?? '?';
  const command = ['chroot', '/host', 'sh', '-c', nodeOsScript(packages)];
  if (await hasCli('oc')) {
    const r = await ocDebug(name, command, kubeconfig);
    return { ...parseNodeOsOutput(name, r.stdout, packages, 'oc debug'), asked: { how: r.command, output: r.stdout } };
  }
  const r = await runOnNode(cluster.kubeConfig, name, command);
  return { ...parseNodeOsOutput(name, r.output, packages, 'debug pod'), asked: { how: `debug pod ${r.pod} on node ${name}: ${command.join(' ')}`, output: r.output } };
}

/** The digest part of a `name@sha256:…` pullspec. */
export function digestOf(pullspec: string): string | undefined {
  return /@(sha256:[0-9a-f]{64})$/.exec(pullspec)?.[1];
}
