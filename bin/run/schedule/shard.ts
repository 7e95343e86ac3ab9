/**
 * `--shard i/n`: the spec files of a run split over n CI jobs. Files are taken in name order and dealt round-robin
 * (file k to shard k mod n + 1), so every shard computes the same split from the same file list, and the n shards
 * together run each file exactly once.
 */
import { basename } from 'node:path';
import { InvalidArgumentError } from 'commander';

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

export function parseShard(value: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(value.trim());
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count) {
    throw new InvalidArgumentError('must be i/n with 1 <= i <= n, e.g. 2/3');
  }
  return { index, count };
}

export function filesOfShard(files: string[], shard: Shard): string[] {
  const ordered = [...files].sort((a, b) => basename(a).localeCompare(basename(b)));
  return ordered.filter((_, k) => k % shard.count === shard.index - 1);
}

export const formatShard = (shard: Shard): string => `${shard.index}/${shard.count}`;
