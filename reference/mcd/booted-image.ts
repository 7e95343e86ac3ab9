/**
 * The daemon's check of the booted OS when it starts on a node (a daemon pod start, and the start after an update's
 * reboot): is the node booted into the OS image of the config it is on? Upstream openshift/machine-config-operator
 * pkg/daemon/daemon.go `checkStateOnFirstRun` → `validateOnDiskState` → `checkOS`, per release:
 *
 *  - BUG-B cad20f710: the booted pullspec must equal the config's osImageURL, string for string; a mismatch is
 *    "expected target osImageURL %q, have %q";
 *  - FIX 3943ef1d0, release-4.13 a57ca2912 (and every branch up to release-4.18 before the OCPBUGS-55770 backport
 *    e6eacd707, merged as 033e1dc48 on 2025-05-19): `checkOS` first inspects the config's image (`imageInspect`) and
 *    takes the node as booted right when the image's `ostree.commit` label equals the booted deployment's base commit
 *    (`bootedOSCommit`, from rpm-ostree's booted deployment); an image it cannot inspect is only a warning, and the
 *    string comparison decides. A mismatch names the commit too: "expected target osImageURL %q, have %q (%q)";
 *  - release-4.18 f313997e0 and later (4.19 1a6905d98, 4.20 afed09939, 4.21 db84d8368, 4.22 9027c94cd): the string
 *    comparison only, with the warning "osImageURL %q is not a digest; using a digest is recommended" when the
 *    config's image has no "sha256:" in it; the mismatch text without the commit again.
 * The caller wraps it "unexpected on-disk state validating against %s: %w" with the config's name (4.18+:
 * `validateOnDiskStateOrImage`, the same text for a node without an on-cluster-built image) and SetDegraded writes it.
 *
 * The commit rule is what lets a layered image through: an image built FROM RHCOS inherits the base's labels, its
 * `ostree.commit` among them, so a node still booted on that base passes the check for the layered image.
 */
import { goQuote } from '../mco/go-quote.js';
import type { BootedImageCheck } from '../profiles/profile.js';
import { BOOTABLE_LABEL, degradedReason, OSTREE_COMMIT_LABEL } from './image-type.js';
import { OS_REPOSITORY } from '../releases/recipes.js';
import { createHash } from 'node:crypto';

/** The label ostree-rs-ext writes into an encapsulated ostree commit (RHCOS's OS images carry it). */
export const ENCAPSULATED_COMMIT_LABEL = 'ostree.commit';

/**
 * The commit an image names in its `ostree.commit` label. RHCOS images carry both that label (ostree-rs-ext's) and
 * coreos-assembler's `com.coreos.ostree-commit`, with the same commit. The reference's OS images carry only the
 * latter (releases/recipes.ts): adding a label would change every OS image's digest, and with it the release
 * payloads, the registry's and the node trees' caches. So a bootable image's `com.coreos.ostree-commit` stands for
 * its `ostree.commit` too; an image built FROM it inherits both, as a real layered image does. machine-os-content was
 * never encapsulated by ostree-rs-ext, so it has no `ostree.commit`.
 */
export function encapsulatedCommitOf(labels: Record<string, string>): string | undefined {
  return labels[ENCAPSULATED_COMMIT_LABEL] ?? (labels[BOOTABLE_LABEL] === 'true' ? labels[OSTREE_COMMIT_LABEL] : undefined);
}

/**
 * The ostree commit of a deployment booted from `pullspec` (rpm-ostree's base checksum, upstream's bootedOSCommit).
 * A release's own OS image is an encapsulated commit, so its deployment is that commit. A derived image (a layered
 * image built FROM it) has other content, and ostree commits are content-addressed: its deployment is a commit of its
 * own, however many labels it inherited. The reference's images carry no `ostree.final-diffid` to tell the two apart
 * by their layers, so it goes by the repository: the release's OS repository holds only the releases' images, a
 * layered image is pushed elsewhere. The derived commit is the checksum the node's `rpm-ostree status` prints for it
 * (os-status.ts).
 */
export function deploymentCommitOf(pullspec: string, digest: string, labels: Record<string, string>): string {
  const fromRelease = pullspec.includes(`/${OS_REPOSITORY}@`) || pullspec.includes(`/${OS_REPOSITORY}:`);
  const encapsulated = fromRelease ? encapsulatedCommitOf(labels) : undefined;
  return encapsulated ?? createHash('sha256').update(`${pullspec}\0${digest}`).digest('hex');
}

/** What the daemon needs to judge one start: the config it validates against and what the node booted. */
export interface BootedImageQuestion {
  check: BootedImageCheck;
  /** The config's name (the pending config after an update's reboot, else the current one). */
  configName: string;
  /** The config's osImageURL. */
  wanted: string;
  /** The booted deployment's image reference, as rpm-ostree reports it. */
  booted: string;
  /**
   * The commit check's two reads, made only when the strings differ: the `ostree.commit` label of the config's image
   * (undefined when it has none; an Error when it could not be inspected) and the booted deployment's commit.
   */
  commits?: () => Promise<{ label: string | Error | undefined; booted: string }>;
}

export interface BootedImageAnswer {
  /** The node's Degraded reason, or undefined when the node is booted as the config says. */
  reason?: string;
  /** What the daemon logs on the way (the warnings and the commit match). */
  logs: string[];
}

/**
 * `checkOS` and its caller's texts for one start. Upstream's commit check inspects the image before it compares the
 * strings; when they are equal the answer is yes either way, so the reference reads the labels only when they
 * differ (a node booted as its config says costs no registry request, and its log lacks the commit check's lines).
 */
export async function checkBootedImage(q: BootedImageQuestion): Promise<BootedImageAnswer> {
  const logs: string[] = [];
  if (q.check === 'pullspec-digest-advised' && !q.wanted.includes('sha256:')) {
    logs.push(`osImageURL ${goQuote(q.wanted)} is not a digest; using a digest is recommended`);
  }
  if (q.booted === q.wanted) return { logs };
  let bootedCommit = '';
  if (q.check === 'pullspec-or-commit' && q.commits) {
    const { label, booted } = await q.commits();
    bootedCommit = booted;
    if (label instanceof Error) logs.push(`Unable to check manifest for matching hash: ${label.message}`);
    else if (label !== undefined && label === booted) {
      logs.push(`We are technically in the right image even if the URL doesn't match (${label} == ${q.wanted})`);
      return { logs };
    }
  }
  const have = q.check === 'pullspec-or-commit' ? `${goQuote(q.booted)} (${goQuote(bootedCommit)})` : goQuote(q.booted);
  const reason = degradedReason(`unexpected on-disk state validating against ${q.configName}: expected target osImageURL ${goQuote(q.wanted)}, have ${have}`);
  return { reason, logs };
}
