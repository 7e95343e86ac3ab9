/**
 * What the suite asks a node, as named probes. Each probe is a shell fragment run on the host (inside the one
 * `chroot /host sh -c …` of the node's debug pod, node-os.ts) and a parser of exactly what that fragment printed (its
 * own section of the pod's output). What the answer must be is a fact (facts/node.ts); which probes a check runs is
 * node-probes-expected.ts. The fragments are the commands a person types on a real node, so they answer the same on
 * every target: `rpm-ostree status --json`, `cat /proc/cmdline`, `rpm -q`, `stat`/`cat`, `systemctl is-enabled`, `uname -r`.
 */

/**
 * How the node was asked: an exec into the node's machine-config-daemon pod, `oc debug node/…`, or a debug pod created
 * through the API.
 */
export type ProbeSource = 'daemon exec' | 'oc debug' | 'debug pod';

export interface NodeProbe<T> {
  /** Names the probe's section in the output; one read holds each name once. */
  readonly name: string;
  /** The shell fragment run on the host. Prints its answer; its exit status is not used. */
  readonly script: string;
  /** Reads the probe's own section: exactly what the fragment printed. Throws when the node's answer is unreadable. */
  parse(section: string, source: ProbeSource): T;
}

export interface BootedImage {
  /** The image the booted deployment came from, without the ostree transport prefix. */
  image: string;
  /** `sha256:<hex>` of the booted image when known. */
  digest?: string;
  source: ProbeSource;
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
export function parseRpmOstreeStatus(json: string, source: ProbeSource): BootedImage {
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

// What may be written into a fragment unquoted or inside single quotes: a name never carries shell syntax.
const PACKAGE_NAME = /^[A-Za-z0-9._+-]+$/;
const FILE_PATH = /^\/[A-Za-z0-9._@+,:=/-]+$/;
const UNIT_NAME = /^[A-Za-z0-9:._@-]+\.(service|socket|target|timer|path|mount|automount|swap|slice|scope|device)$/;

function checked(kind: string, value: string, form: RegExp): string {
  if (!form.test(value)) throw new Error(`not a ${kind}: ${JSON.stringify(value)}`);
  return value;
}

/** The image of the booted deployment. */
export const bootedImageProbe: NodeProbe<BootedImage> = {
  name: 'booted image',
  script: 'rpm-ostree status --json',
  parse(section, source) {
    const jsonStart = section.indexOf('{');
    return parseRpmOstreeStatus(jsonStart >= 0 ? section.slice(jsonStart) : section, source);
  },
};

/** The kernel command line the node booted with, one argument per entry. */
export const kernelArgumentsProbe: NodeProbe<string[]> = {
  name: 'kernel arguments',
  script: 'cat /proc/cmdline',
  parse(section) {
    const line = section.split('\n').find((l) => l.trim() !== '') ?? '';
    if (/No such file|can't open|not found/.test(line)) throw new Error(`/proc/cmdline could not be read: ${line.trim()}`);
    return line.trim().split(/\s+/).filter(Boolean);
  },
};

/** A package's name-version-release, or undefined when it is not installed. */
export function packageProbe(name: string): NodeProbe<string | undefined> {
  checked('package name', name, PACKAGE_NAME);
  return {
    name: `package ${name}`,
    script: `rpm -q ${name}`,
    parse: (section) => packageInList(section.split('\n'), name),
  };
}

export type FileOnNode = { exists: true; mode: number; contents: string } | { exists: false; says: string };

/**
 * A file's permission bits and content: `stat -c '%a'` prints the octal mode on a line of its own, then `cat` the
 * bytes as they are. A file that is not there leaves stat's message instead of a mode.
 */
export function fileProbe(path: string): NodeProbe<FileOnNode> {
  checked('file path', path, FILE_PATH);
  return {
    name: `file ${path}`,
    script: `stat -c '%a' '${path}' && cat '${path}'`,
    parse(section) {
      const newline = section.indexOf('\n');
      const first = newline >= 0 ? section.slice(0, newline) : section;
      if (!/^[0-7]{1,4}$/.test(first.trim())) return { exists: false, says: first.trim() || '(no output)' };
      return { exists: true, mode: parseInt(first.trim(), 8), contents: newline >= 0 ? section.slice(newline + 1) : '' };
    },
  };
}

/** `systemctl is-enabled`'s word for the unit (`enabled`, `disabled`, `static`, `masked`, …), or its complaint. */
export interface UnitOnNode {
  state: string;
  enabled: boolean;
}

/** States systemctl counts as enabled (it exits 0 for them). */
const ENABLED_STATES = new Set(['enabled', 'enabled-runtime', 'alias', 'static', 'indirect', 'generated', 'transient']);

export function unitProbe(name: string): NodeProbe<UnitOnNode> {
  checked('systemd unit name', name, UNIT_NAME);
  return {
    name: `unit ${name}`,
    script: `systemctl is-enabled ${name}`,
    parse(section) {
      const state = section.split('\n').map((l) => l.trim()).find(Boolean) ?? '(no output)';
      return { state, enabled: ENABLED_STATES.has(state) };
    },
  };
}

export type KernelType = 'default' | 'realtime';

/** The running kernel: a realtime kernel's release carries `rt` (`4.18.0-372.26.1.rt7.183.el8_6.x86_64`). */
export const kernelTypeProbe: NodeProbe<{ kernelType: KernelType; release: string }> = {
  name: 'kernel type',
  script: 'uname -r',
  parse(section) {
    const release = section.split('\n').map((l) => l.trim()).find(Boolean) ?? '';
    if (!/^\d+\.\d+/.test(release)) throw new Error(`uname -r did not print a kernel release: ${release || '(no output)'}`);
    return { kernelType: /(^|[.+-])rt(\d|[.+-]|$)/.test(release) ? 'realtime' : 'default', release };
  },
};
