/**
 * Each reference node's root file system on disk, made from what the node's record (kubelet/hosts.ts) says it
 * booted and what the daemon wrote. Per node, under the cluster's nodes folder:
 *
 *   upper/  the node's own state: an overlay's upper layer over its booted deployment (deployment-trees.ts, shared
 *           read-only by every node that booted it). The daemon's files and units are written here; commands write
 *           /etc and /var here. It outlives a reboot into another deployment, as a node's /etc and /var do.
 *   work/   the overlay's work folder.
 *   proc/   the node's kernel view: cmdline (the booted kernel arguments), uptime (since the daemon's last reboot of
 *           it), sys/kernel/osrelease (the booted kernel package), rewritten before each command.
 *   run/    what the node's running services know: ocp-e2e/rpm-ostree-status* (booted and rollback
 *           deployments), read by the image's own rpm-ostree.
 *   mnt/, ctr/  mount points, used only inside a command's private mount namespace (node-command.ts).
 *
 * Nothing here is mounted outside a command's namespace, so a node costs its few written files and a handful of
 * folders; the image is on disk once. The tree is brought up to date from the record when a command is about to
 * run (prepare), not when the daemon writes the record: a node nobody looks at costs nothing.
 */
import { createHash } from 'node:crypto';
import { chmod, chown, lstat, mkdir, readFile, readdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { HostFile, HostOs, HostUnit } from '../kubelet/hosts.js';
import { copyUpParents, ownerIds, type Accounts, readAccounts } from './ownership.js';
import { RPMDB_PATH, parseRpmDb } from '../releases/os-content.js';
import type { DeploymentTrees } from './deployment-trees.js';
import { kernelCommandLine, kernelRelease } from './kernel.js';
import { startOnNode, type PreparedNode } from './node-command.js';
import { replaceFile } from './replace-file.js';
import { rpmOstreeStatusFiles } from './rpm-ostree-status.js';
import { enablementLinks } from './unit-links.js';

interface Wanted {
  /** Upper-layer paths (absolute in the node) → what to put there. */
  entries: Map<string, { file?: { mode: number; contents: Buffer; owner?: HostFile['owner'] }; link?: string }>;
  /** Paths the deployment has that must not show (a link of a unit the config disables). */
  hidden: Set<string>;
}

export class NodeRoots {
  /** What each node's upper layer was last made to hold, by a hash of the record's files and units. */
  private readonly synced = new Map<string, string>();
  private readonly syncing = new Map<string, Promise<void>>();

  constructor(
    private readonly nodesDir: string,
    private readonly deployments: DeploymentTrees,
    /** Cluster time, ms: the node's uptime counts on it. */
    private readonly now: () => number,
  ) {}

  dirOf(node: string): string {
    if (!/^[A-Za-z0-9._-]+$/.test(node) || node.startsWith('.')) throw new Error(`not a node name: ${JSON.stringify(node)}`);
    return path.join(this.nodesDir, node);
  }

  /**
   * Starts making the deployment tree `os` boots, without waiting: the first command on a node booted to a new image
   * would otherwise unpack it (a spec's layered image is new in every run: about a second of its check phase), while
   * the rollout that boots it leaves the process waiting on reboots. A failure is the first command's to report.
   */
  warm(os: HostOs): void {
    this.deployments.tree(os.booted.pullspec, os.deployment).catch(() => undefined);
  }

  async prepare(node: string, os: HostOs): Promise<PreparedNode> {
    const dir = this.dirOf(node);
    const deployment = await this.deployments.tree(os.booted.pullspec, os.deployment);
    const keptEtc = os.etcKeptFrom ? (await this.deployments.tree(os.etcKeptFrom.pullspec, os.etcKeptFrom.deployment)).root : undefined;
    for (const d of ['upper', 'work', 'mnt', 'ctr', 'proc/sys/kernel', 'run/ocp-e2e']) await mkdir(path.join(dir, d), { recursive: true });
    await this.syncWrites(node, dir, deployment.root, os, keptEtc);
    const packages = parseRpmDb(await readFile(path.join(deployment.root, RPMDB_PATH), 'utf8').catch(() => ''));
    const release = kernelRelease(packages, os.deployment.kernelType);
    const uptime = Math.max(0, (this.now() - os.bootedAtMs) / 1000);
    // replaced, not rewritten in place: a command already running on the node may be reading them (replace-file.ts)
    await replaceFile(path.join(dir, 'proc/cmdline'), `${kernelCommandLine(node, os, release)}\n`);
    await replaceFile(path.join(dir, 'proc/uptime'), `${uptime.toFixed(2)} ${(uptime * 1.8).toFixed(2)}\n`);
    await replaceFile(path.join(dir, 'proc/sys/kernel/osrelease'), `${release}\n`);
    await replaceFile(path.join(dir, 'proc/sys/kernel/hostname'), `${node}\n`);
    for (const [name, text] of Object.entries(rpmOstreeStatusFiles(os.booted, os.previous))) await replaceFile(path.join(dir, 'run/ocp-e2e', name), text);
    return { node, lower: deployment.root, dir };
  }

  /** Removes every node's folder (the cluster is stopping). */
  async removeAll(): Promise<void> {
    await rm(this.nodesDir, { recursive: true, force: true });
  }

  /** Brings upper/ to what the record's files and units say, once per change of them (one sync at a time per node). */
  private async syncWrites(node: string, dir: string, lower: string, os: HostOs, keptEtc: string | undefined): Promise<void> {
    const key = createHash('sha256').update(lower).update(`\0${keptEtc ?? ''}\0`);
    for (const f of os.files.values()) key.update(`${f.path}\0${f.mode}\0${JSON.stringify(f.owner ?? {})}\0`).update(f.contents as unknown as Uint8Array);
    for (const u of os.units.values()) key.update(JSON.stringify(u));
    const signature = key.digest('hex');
    while (this.syncing.has(node)) await this.syncing.get(node);
    if (this.synced.get(node) === signature) return;
    const task = this.writeUpper(dir, lower, os, keptEtc).then(() => void this.synced.set(node, signature));
    this.syncing.set(node, task);
    try {
      await task;
    } finally {
      this.syncing.delete(node);
    }
  }

  private async writeUpper(dir: string, lower: string, os: HostOs, keptEtc: string | undefined): Promise<void> {
    const upper = path.join(dir, 'upper');
    const record = path.join(dir, 'written.json');
    const before = JSON.parse(await readFile(record, 'utf8').catch(() => '[]')) as string[];
    const wanted = await wantedOf(os, lower, keptEtc);
    let accounts: Accounts | undefined;
    for (const p of before) if (!wanted.entries.has(p)) await rm(path.join(upper, p), { force: true });
    for (const [p, entry] of wanted.entries) {
      const target = path.join(upper, p);
      // a folder the deployment has keeps its mode and owner in upper/, as an overlay's copy-up keeps them
      await copyUpParents(lower, upper, path.posix.dirname(p));
      await rm(target, { force: true, recursive: true });
      if (entry.link !== undefined) await symlink(entry.link, target);
      else if (entry.file) {
        await writeFile(target, entry.file.contents as unknown as Uint8Array);
        await chmod(target, entry.file.mode & 0o7777);
        if (entry.file.owner) {
          accounts ??= await readAccounts(upper, lower);
          await ownFile(target, ownerIds(entry.file.owner, accounts, p));
        }
      }
    }
    const hidden = [...wanted.hidden].filter((p) => !wanted.entries.has(p));
    if (hidden.length) await hide({ node: path.basename(dir), lower, dir }, hidden);
    await writeFile(record, JSON.stringify([...wanted.entries.keys(), ...hidden]));
  }
}

/**
 * Removes files of the deployment from the node's view: through the mounted overlay, which leaves its whiteouts in
 * upper/ (the kernel makes them; writing one by hand would take root, or a newer kernel in a user namespace).
 */
async function hide(prepared: PreparedNode, paths: string[]): Promise<void> {
  const rmOnNode = startOnNode(prepared, ['rm', '-f', '--', ...paths]);
  let said = '';
  rmOnNode.stderr.on('data', (c: Buffer) => (said += c.toString()));
  rmOnNode.stdout.resume();
  const code = await rmOnNode.exit;
  if (code !== 0) throw new Error(`node ${prepared.node}: could not remove ${paths.join(' ')}: ${said.trim() || `exit ${code}`}`);
}

/**
 * What the daemon's files and units put on the node: each file at its path with its mode; a unit with contents at
 * /etc/systemd/system/NAME; an enabled unit's links for its [Install] targets (read from the written unit, else the
 * deployment's own unit file), a disabled one's links gone, a masked one a link to /dev/null (what Ignition and the
 * daemon's `systemctl enable/disable/mask` leave).
 */
async function wantedOf(os: HostOs, lower: string, keptEtc: string | undefined): Promise<Wanted> {
  const entries: Wanted['entries'] = keptEtc ? await etcOnlyIn(keptEtc, lower) : new Map();
  const hidden = new Set<string>();
  for (const f of os.files.values()) entries.set(normal(f.path), { file: { mode: f.mode, contents: f.contents, owner: f.owner } });
  for (const unit of os.units.values()) {
    const unitPath = `/etc/systemd/system/${unit.name}`;
    if (unit.mask) {
      entries.set(unitPath, { link: '/dev/null' });
      continue;
    }
    if (unit.contents !== undefined) entries.set(unitPath, { file: { mode: 0o644, contents: Buffer.from(unit.contents) } });
    if (unit.enabled === undefined) continue;
    const text = unit.contents ?? (await imageUnit(lower, unit));
    const links = text === undefined ? [] : enablementLinks(unit.name, text);
    for (const link of links) {
      if (unit.enabled) entries.set(link, { link: unit.contents !== undefined ? unitPath : await imageUnitPath(lower, unit) });
      else if (await exists(path.join(lower, link))) hidden.add(link);
    }
  }
  return { entries, hidden };
}

/**
 * Fault mcd-keeps-old-etc-on-rebase: the files and links of `kept`'s /etc that the booted deployment does not have,
 * as upper-layer entries (what the booted deployment has in /etc shows through, as the real merge takes the new
 * image's copy of a file nobody changed).
 */
async function etcOnlyIn(kept: string, lower: string): Promise<Wanted['entries']> {
  const entries: Wanted['entries'] = new Map();
  const names = (await readdir(path.join(kept, 'etc'), { recursive: true }).catch(() => [] as string[])) as string[];
  for (const name of names) {
    const p = `/etc/${name.split(path.sep).join('/')}`;
    if (await exists(path.join(lower, p))) continue;
    const stats = await lstat(path.join(kept, p));
    if (stats.isSymbolicLink()) entries.set(p, { link: await readlink(path.join(kept, p)) });
    else if (stats.isFile()) entries.set(p, { file: { mode: stats.mode, contents: await readFile(path.join(kept, p)) } });
  }
  return entries;
}

const UNIT_DIRS = ['/etc/systemd/system', '/usr/lib/systemd/system'];

async function imageUnitPath(lower: string, unit: HostUnit): Promise<string> {
  for (const d of UNIT_DIRS) if (await exists(path.join(lower, d, unit.name))) return `${d}/${unit.name}`;
  return `/usr/lib/systemd/system/${unit.name}`;
}

async function imageUnit(lower: string, unit: HostUnit): Promise<string | undefined> {
  for (const d of UNIT_DIRS) {
    const text = await readFile(path.join(lower, d, unit.name), 'utf8').catch(() => undefined);
    if (text !== undefined) return text;
  }
  return undefined;
}

function normal(p: string): string {
  const n = path.posix.normalize(`/${p}`);
  if (n.split('/').includes('..')) throw new Error(`file path ${p} leaves the node's root`);
  return n;
}

/**
 * Gives a written file its owner. Only root can: a developer's unprivileged run maps one id into the node's user
 * namespace, so there the file stays the caller's: root inside the node (reference/README.md says so).
 */
async function ownFile(target: string, ids: { uid: number; gid: number }): Promise<void> {
  if (process.getuid?.() !== 0) return;
  await chown(target, ids.uid, ids.gid);
}

async function exists(p: string): Promise<boolean> {
  return lstat(p).then(() => true, () => false);
}
