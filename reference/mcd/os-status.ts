/**
 * What a simulated host answers to `rpm-ostree status --json` (its booted and rollback deployments, as a debug pod
 * prints them; see node-fs/rpm-ostree-status.ts), the OS name its kubelet reports, and the plan of one update's steps in
 * cluster time.
 */
import { createHash } from 'node:crypto';
import type { OsImageContent } from '../context.js';
import { MINUTE } from '../constants.js';
import type { Rng } from '../rng.js';

export interface BootedImage {
  pullspec: string;
  content: OsImageContent;
  /** Cluster time of the deployment, ms. */
  timestampMs: number;
}

function deploymentOf(image: BootedImage, booted: boolean): Record<string, unknown> {
  const checksum = createHash('sha256').update(`${image.pullspec}\0${image.content.digest}`).digest('hex');
  return {
    id: `rhcos-${checksum}.0`,
    osname: 'rhcos',
    booted,
    staged: false,
    pinned: false,
    unlocked: 'none',
    checksum,
    version: image.content.osRelease.OSTREE_VERSION ?? image.content.osRelease.VERSION ?? '',
    timestamp: Math.floor(image.timestampMs / 1000),
    'container-image-reference': `ostree-unverified-registry:${image.pullspec}`,
    'container-image-reference-digest': image.content.digest,
    'requested-packages': [],
    'requested-local-packages': [],
    'base-removals': [],
    'base-local-replacements': [],
    layered: false,
  };
}

/** JSON shaped like `rpm-ostree status --json`: the booted deployment first, the rollback one after it. */
export function rpmOstreeStatusJson(booted: BootedImage, previous?: BootedImage): string {
  const deployments = [deploymentOf(booted, true)];
  if (previous && previous.pullspec !== booted.pullspec) deployments.push(deploymentOf(previous, false));
  return JSON.stringify({ deployments, transaction: null, 'cached-update': null, 'update-driver': null });
}

/** status.nodeInfo.osImage is PRETTY_NAME of the booted /etc/os-release, as the kubelet reports it. */
export function osImageName(content: OsImageContent): string {
  return content.osRelease.PRETTY_NAME ?? content.osRelease.NAME ?? 'Linux';
}

export interface UpdatePlan {
  drainMs: number;
  pullMs: number;
  rebootMs: number;
  settleMs: number;
}

/** A node update takes 10-20 cluster minutes in the field; the seeded draw splits it into its steps. */
export function planUpdate(rng: Rng): UpdatePlan {
  const total = rng.between(10 * MINUTE, 20 * MINUTE);
  const drain = rng.between(0.1, 0.2);
  const pull = rng.between(0.2, 0.3);
  const settle = 0.05;
  return { drainMs: total * drain, pullMs: total * pull, rebootMs: total * (1 - drain - pull - settle), settleMs: total * settle };
}
