/**
 * Owners of what the daemon writes into a node's upper layer: Ignition's user and group (ids or names) resolved
 * against the node's own /etc/passwd and /etc/group, and the folders on the way to a file made as an overlay's
 * copy-up makes them (the deployment's mode and owner kept, so /home/core stays core's and 0700).
 */
import { chmod, chown, lstat, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { HostFile } from '../kubelet/hosts.js';

export interface Accounts {
  users: Map<string, { uid: number; gid: number }>;
  groups: Map<string, number>;
}

/** The node's accounts: its upper layer's /etc files when it has its own, else the deployment's. */
export async function readAccounts(upper: string, lower: string): Promise<Accounts> {
  const read = async (rel: string): Promise<string> =>
    (await readFile(path.join(upper, rel), 'utf8').catch(() => undefined)) ?? (await readFile(path.join(lower, rel), 'utf8').catch(() => ''));
  const users = new Map<string, { uid: number; gid: number }>();
  for (const line of (await read('etc/passwd')).split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (name && uid !== undefined && gid !== undefined) users.set(name, { uid: Number(uid), gid: Number(gid) });
  }
  const groups = new Map<string, number>();
  for (const line of (await read('etc/group')).split('\n')) {
    const [name, , gid] = line.split(':');
    if (name && gid !== undefined) groups.set(name, Number(gid));
  }
  return { users, groups };
}

/** lookupUID/lookupGID of the daemon's getFileOwnership: a name the node does not know fails the write. */
export function ownerIds(owner: NonNullable<HostFile['owner']>, accounts: Accounts, file: string): { uid: number; gid: number } {
  const uid = typeof owner.user === 'string' ? accounts.users.get(owner.user)?.uid : owner.user ?? 0;
  if (uid === undefined) throw new Error(`failed to retrieve file ownership for file "${file}": failed to retrieve UserID for username: ${owner.user}`);
  const gid = typeof owner.group === 'string' ? accounts.groups.get(owner.group) : owner.group ?? 0;
  if (gid === undefined) throw new Error(`failed to retrieve file ownership for file "${file}": failed to retrieve GroupID for group: ${owner.group}`);
  return { uid, gid };
}

/** Makes each missing folder of `dir` (absolute in the node) in upper/ with the mode and owner it has in lower/. */
export async function copyUpParents(lower: string, upper: string, dir: string): Promise<void> {
  let rel = '';
  for (const part of dir.split('/').filter(Boolean)) {
    rel = path.posix.join(rel, part);
    const inUpper = path.join(upper, rel);
    if (await lstat(inUpper).then(() => true, () => false)) continue;
    await mkdir(inUpper);
    const below = await lstat(path.join(lower, rel)).catch(() => undefined);
    if (!below?.isDirectory()) continue;
    await chmod(inUpper, below.mode & 0o7777);
    if (process.getuid?.() === 0) await chown(inUpper, below.uid, below.gid);
  }
}
