/**
 * Nodes as the machine-config daemon describes them in its annotations (which config a node runs and is moving to,
 * and what it is doing about it), and as the node itself answers the suite's probes (node-probes.ts): what it booted,
 * its kernel arguments, packages, files, units and kernel type.
 */
import type { BootedImage, FileOnNode, KernelType, UnitOnNode } from '../node-probes.js';
import { NodeAnnotations, type Node } from '../types.js';
import { fails, holds, quote, type Fact } from './fact.js';

export type NodeActivity = 'done' | 'updating' | 'rebooting' | 'degraded' | 'waiting';

export interface NodeView {
  name: string;
  current?: string;
  desired?: string;
  state?: string;
  reason?: string;
  ready: boolean;
  activity: NodeActivity;
}

export function viewNode(node: Node): NodeView {
  const a = node.metadata?.annotations ?? {};
  const current = a[NodeAnnotations.currentConfig];
  const desired = a[NodeAnnotations.desiredConfig];
  const state = a[NodeAnnotations.state];
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  let activity: NodeActivity;
  if (state === 'Degraded' || state === 'Unreconcilable') activity = 'degraded';
  else if (!ready) activity = 'rebooting';
  else if (current && desired && current !== desired) activity = state === 'Working' ? 'updating' : 'waiting';
  else if (state === 'Working') activity = 'updating';
  else activity = 'done';
  return { name: node.metadata?.name ?? '?', current, desired, state, reason: a[NodeAnnotations.reason] || undefined, ready, activity };
}

/** The daemon is Done on the rendered config: current and desired are both it. */
export function nodeDoneOn(node: Node, rendered: string): Fact {
  const n = viewNode(node);
  if (n.current === rendered && n.desired === rendered && n.state === 'Done') return holds(`node ${n.name} is Done on ${rendered}`);
  return fails(
    `node ${n.name} is on ${n.current ?? '(none)'} (desired ${n.desired ?? '(none)'}, state ${n.state ?? 'unset'}${n.reason ? `: ${quote(n.reason)}` : ''}), expected Done on ${rendered}`,
  );
}

/** One line for timelines: the fields whose changes matter for an upgrade. */
export function nodeLine(node: Node): string {
  const n = viewNode(node);
  return `current=${n.current ?? '-'} desired=${n.desired ?? '-'} state=${n.state ?? '-'} ready=${n.ready}${n.reason ? ` reason=${n.reason}` : ''}`;
}

/** An image built per architecture: the node's architecture and the digest of each architecture's image. */
export interface PlatformDigests {
  /** The node's architecture (kubernetes.io/arch). */
  architecture: string;
  /** Each architecture's image: the entries of the index `expectedImage` names, or the one single-arch image. */
  images: ReadonlyArray<{ architecture: string; digest: string }>;
}

/**
 * The node booted the image; by digest when the expected pullspec carries one. `why` says why it is expected. With
 * `platforms`, the node must boot its own architecture's image: rpm-ostree reports the digest of the image it pulled,
 * which an index resolves to the entry of the host's platform; another architecture's entry, or none for it, fails.
 */
export function nodeBootedImage(node: string, booted: BootedImage, expectedImage: string, why: string, platforms?: PlatformDigests): Fact {
  const expectedDigest = /@(sha256:[0-9a-f]{64})$/.exec(expectedImage)?.[1];
  // one single-arch image of the node's own architecture, named by its digest: nothing to resolve per architecture,
  // and the plain words say it (those the kill matrix reads); one of another architecture is said as such below
  const single = platforms?.images.length === 1 ? platforms.images[0]! : undefined;
  const singleImage = single !== undefined && single.digest === expectedDigest && single.architecture === platforms!.architecture;
  if (platforms && !singleImage) return nodeBootedOwnPlatform(node, booted, expectedImage, why, platforms);
  const ok = expectedDigest ? booted.digest === expectedDigest || booted.image.endsWith(`@${expectedDigest}`) : booted.image === expectedImage;
  if (ok) return holds(`node ${node} booted ${expectedImage} according to ${booted.source}`);
  return fails(`node ${node} booted ${booted.image}${booted.digest ? ` (digest ${booted.digest})` : ''} according to ${booted.source}, expected ${expectedImage} (${why})`);
}

function nodeBootedOwnPlatform(node: string, booted: BootedImage, expectedImage: string, why: string, platforms: PlatformDigests): Fact {
  const arch = platforms.architecture;
  const own = platforms.images.find((i) => i.architecture === arch);
  const built = platforms.images.map((i) => i.architecture).join(', ');
  const seen = `${booted.image}${booted.digest ? ` (digest ${booted.digest})` : ''} according to ${booted.source}`;
  if (!own) return fails(`node ${node} runs ${arch}, and ${expectedImage} has no ${arch} image (built for ${built}): it booted ${seen} (${why})`);
  if (booted.digest === own.digest) return holds(`node ${node} (${arch}) booted ${expectedImage}: its ${arch} image ${own.digest}, according to ${booted.source}`);
  const other = platforms.images.find((i) => i.digest === booted.digest);
  if (other) return fails(`node ${node} runs ${arch} but booted the ${other.architecture} image ${other.digest} of ${expectedImage}, according to ${booted.source}; expected its ${arch} image ${own.digest} (${why})`);
  // a host that reports the reference it pulled and not the digest it resolved it to: the index itself
  const plain = nodeBootedImage(node, booted, expectedImage, why);
  if (plain.ok) return holds(`node ${node} (${arch}) booted ${expectedImage}, whose ${arch} image is ${own.digest}, according to ${booted.source} (it reports the pulled reference, not the ${arch} image's digest)`);
  return fails(`node ${node} (${arch}) booted ${seen}, expected ${expectedImage}, its ${arch} image ${own.digest} (${why})`);
}

/** The package is installed; `nvr` is what `rpm -q` answered (undefined: not installed). */
export function nodeHasPackage(node: string, pkg: string, nvr: string | undefined, bootedImage: string, why: string): Fact {
  if (nvr) return holds(`node ${node} has ${nvr}`);
  return fails(`node ${node}: package ${pkg} is not installed in the booted image ${bootedImage}; ${why}`);
}

/** The package is not installed (an extension that was removed, a layered package that went with its image). */
export function nodeLacksPackage(node: string, pkg: string, nvr: string | undefined, why: string): Fact {
  if (!nvr) return holds(`node ${node} has no package ${pkg}`);
  return fails(`node ${node} still has ${nvr} (${why})`);
}

/** Every expected argument is on the kernel command line the node booted, as a whole word. */
export function nodeHasKernelArguments(node: string, cmdline: string[], expected: string[], why: string): Fact {
  const missing = expected.filter((arg) => !cmdline.includes(arg));
  if (!missing.length) return holds(`node ${node} booted with kernel arguments ${expected.join(' ')}`);
  return fails(`node ${node} booted without kernel argument${missing.length > 1 ? 's' : ''} ${missing.join(' ')} (/proc/cmdline: ${cmdline.join(' ') || '(empty)'}) (${why})`);
}

/** None of the arguments is on the kernel command line the node booted. */
export function nodeLacksKernelArguments(node: string, cmdline: string[], unwanted: string[], why: string): Fact {
  const present = unwanted.filter((arg) => cmdline.includes(arg));
  if (!present.length) return holds(`node ${node} booted without kernel arguments ${unwanted.join(' ')}`);
  return fails(`node ${node} still booted with kernel argument${present.length > 1 ? 's' : ''} ${present.join(' ')} (${why})`);
}

export interface ExpectedFile {
  path: string;
  /** The exact content; not checked when absent. */
  contents?: string;
  /** Permission bits (0o644); not checked when absent. */
  mode?: number;
}

const octal = (mode: number): string => `0${mode.toString(8)}`;
const excerpt = (text: string): string => JSON.stringify(text.length > 120 ? `${text.slice(0, 117)}...` : text);

/** The file is on the node with the expected mode and content. */
export function nodeHasFile(node: string, observed: FileOnNode, expected: ExpectedFile, why: string): Fact {
  if (!observed.exists) return fails(`node ${node} has no file ${expected.path}: ${quote(observed.says)} (${why})`);
  if (expected.mode !== undefined && (observed.mode & 0o7777) !== (expected.mode & 0o7777)) {
    return fails(`node ${node}: ${expected.path} has mode ${octal(observed.mode)}, expected ${octal(expected.mode)} (${why})`);
  }
  if (expected.contents !== undefined && observed.contents !== expected.contents) {
    return fails(`node ${node}: ${expected.path} holds ${excerpt(observed.contents)}, expected ${excerpt(expected.contents)} (${why})`);
  }
  return holds(`node ${node} has ${expected.path} (mode ${octal(observed.mode)}, ${Buffer.byteLength(observed.contents)} bytes)`);
}

/** The file is not on the node. */
export function nodeLacksFile(node: string, path: string, observed: FileOnNode, why: string): Fact {
  if (!observed.exists) return holds(`node ${node} has no file ${path}`);
  return fails(`node ${node} still has ${path} (mode ${octal(observed.mode)}, holding ${excerpt(observed.contents)}) (${why})`);
}

/** systemd counts the unit as enabled, or as not enabled. */
export function nodeUnitEnabled(node: string, unit: string, observed: UnitOnNode, enabled: boolean, why: string): Fact {
  if (observed.enabled === enabled) return holds(`node ${node}: ${unit} is ${observed.state}`);
  return fails(`node ${node}: systemctl is-enabled ${unit} says ${quote(observed.state)}, expected it ${enabled ? 'enabled' : 'not enabled'} (${why})`);
}

/** The node runs the kernel type (`uname -r` of a realtime kernel carries `rt`). */
export function nodeRunsKernelType(node: string, observed: { kernelType: KernelType; release: string }, expected: KernelType, why: string): Fact {
  if (observed.kernelType === expected) return holds(`node ${node} runs the ${expected} kernel ${observed.release}`);
  return fails(`node ${node} runs kernel ${observed.release} (${observed.kernelType}), expected the ${expected} kernel (${why})`);
}
