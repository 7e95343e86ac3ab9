/**
 * What a node booted and what is installed in it. On a real cluster that is `rpm-ostree status --json` and `rpm -q`
 * run on the host through `oc debug node/N -- chroot /host ...`; the reference cluster's simulated daemon publishes the
 * same JSON in node annotations. Both feed the same parsers, so the assertions cannot tell the targets apart.
 */
import { hasCli, oc } from './cli.js';
import { NodeAnnotations, type Node } from './types.js';

export interface BootedImage {
  /** The image the booted deployment came from, without the ostree transport prefix. */
  image: string;
  /** `sha256:<hex>` of the booted image when known. */
  digest?: string;
  /** Where the facts came from: the reference annotation or `oc debug`. */
  source: 'oc debug' | 'debug pod';
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
  return listing.map((l) => l.trim()).find((nvr) => {
    const m = /^(.+)-([^-]+)-([^-]+)$/.exec(nvr);
    return m !== null && m[1] === name;
  });
}

async function debugOnNode(kubeconfig: string, nodeName: string, command: string[]): Promise<string> {
  if (!(await hasCli('oc'))) {
    throw new Error(
      `cannot read node ${nodeName}: it carries no ${NodeAnnotations.rpmOstreeStatus} annotation and \`oc\` is not installed for \`oc debug node/${nodeName}\``,
    );
  }
  const r = await oc(['debug', `node/${nodeName}`, '--', 'chroot', '/host', ...command], { kubeconfig, timeoutMs: 300_000, allowFailure: true });
  if (r.exitCode !== 0 && !r.stdout.trim()) throw new Error(`\`${r.command}\` exited ${r.exitCode}: ${r.stderr.trim().split('\n').pop()}`);
  return r.stdout;
}

/** The booted image of a node: the reference annotation when present, else `oc debug ... rpm-ostree status --json`. */
export async function readBootedImage(node: Node, kubeconfig: string): Promise<BootedImage> {
  const name = node.metadata?.name ?? '?';
  const annotation = node.metadata?.annotations?.[NodeAnnotations.rpmOstreeStatus];
  if (annotation !== undefined) return parseRpmOstreeStatus(annotation, 'annotation');
  return parseRpmOstreeStatus(await debugOnNode(kubeconfig, name, ['rpm-ostree', 'status', '--json']), 'oc debug');
}

/** The installed package's NVR, or undefined when it is not installed in the booted image. */
export async function readInstalledPackage(node: Node, kubeconfig: string, pkg: string): Promise<string | undefined> {
  const name = node.metadata?.name ?? '?';
  const annotation = node.metadata?.annotations?.[NodeAnnotations.rpmQa];
  if (annotation !== undefined) {
    let list: unknown;
    try {
      list = JSON.parse(annotation);
    } catch {
      throw new Error(`node ${name}: annotation ${NodeAnnotations.rpmQa} is not a JSON array`);
    }
    if (!Array.isArray(list)) throw new Error(`node ${name}: annotation ${NodeAnnotations.rpmQa} is not a JSON array`);
    return packageInList(list.map(String), pkg);
  }
  const out = await debugOnNode(kubeconfig, name, ['rpm', '-q', pkg]);
  return packageInList(out.split('\n').map((l) => l.replace(/\.(x86_64|aarch64|ppc64le|s390x|noarch)$/, '')), pkg);
}

/** The digest part of a `name@sha256:…` pullspec. */
export function digestOf(pullspec: string): string | undefined {
  return /@(sha256:[0-9a-f]{64})$/.exec(pullspec)?.[1];
}
