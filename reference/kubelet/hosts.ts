/**
 * What each simulated machine is: the OS image of its booted deployment and of the rollback deployment, as rpm-ostree
 * keeps them on a real host, and what the machine-config daemon applied on top of it. Files and units are on disk as
 * soon as the daemon writes them; kernel arguments, extensions and the kernel type are part of a deployment and take
 * effect when the daemon reboots the node into it. The daemon changes this record; the node's root file system on disk
 * (node-fs/node-roots.ts) is brought up to it before a command runs on the node. The record lives in memory, next
 * to the simulated machines, and is not published through the API: a real cluster has no such object either.
 */
import type { BootedImage } from '../mcd/os-status.js';

/** A file the daemon wrote (Ignition `storage.files`): it hides the image's file at the same path. */
export interface HostFile {
  path: string;
  /** Permission bits, 0o644 by default as Ignition's. */
  mode: number;
  contents: Buffer;
  /** Ignition's `user` and `group` (an id or a name, looked up in the node's /etc/passwd and /etc/group); root when absent. */
  owner?: { user?: number | string; group?: number | string };
}

/** A unit the daemon wrote or switched (Ignition `systemd.units`). */
export interface HostUnit {
  name: string;
  /** Ignition's `enabled`: true enabled, false disabled, undefined left as the unit's [Install] says. */
  enabled?: boolean;
  mask?: boolean;
  contents?: string;
}

/** What a deployment boots besides the image: the parts of a MachineConfig rpm-ostree stages. */
export interface DeploymentConfig {
  kernelArguments: string[];
  /** Extension names (`usbguard`), as the MachineConfig lists them. */
  extensions: string[];
  /** Where the extensions' packages come from: the release's extensions image, or (before 4.12 FIX) the OS image. */
  extensionsImage?: string;
  kernelType: 'default' | 'realtime';
}

export const PLAIN_DEPLOYMENT: DeploymentConfig = { kernelArguments: [], extensions: [], kernelType: 'default' };

export interface HostOs {
  booted: BootedImage;
  /** The rollback deployment, when the host was ever rebased. */
  previous?: BootedImage;
  /** What the booted deployment was staged with. */
  deployment: DeploymentConfig;
  /** Files written by the daemon, by path. */
  files: ReadonlyMap<string, HostFile>;
  /** Units written or switched by the daemon, by name. */
  units: ReadonlyMap<string, HostUnit>;
  /** Cluster time of the last boot, ms. */
  bootedAtMs: number;
  /**
   * Fault mcd-keeps-old-etc-on-rebase: the deployment the host rebased away from, whose /etc the host kept whole as if
   * every file of it were a local change (rpm-ostree's /etc merge keeps only what differs from that deployment's image).
   */
  etcKeptFrom?: { pullspec: string; deployment: DeploymentConfig };
}

export class NodeHosts {
  private readonly hosts = new Map<string, HostOs>();
  private readonly bootListeners: Array<(node: string, os: HostOs) => void> = [];

  /** `installed`: what every machine booted when the cluster was installed. */
  constructor(private readonly installed: BootedImage) {}

  get(node: string): HostOs {
    return this.hosts.get(node) ?? this.asInstalled();
  }

  /** A machine as the cluster was installed: the installed image booted, nothing written. */
  asInstalled(): HostOs {
    return { booted: this.installed, deployment: PLAIN_DEPLOYMENT, files: new Map(), units: new Map(), bootedAtMs: this.installed.timestampMs };
  }

  /** The daemon wrote the config's files and units: they are what the host's disk holds now (others are gone). */
  write(node: string, files: HostFile[], units: HostUnit[]): void {
    this.hosts.set(node, { ...this.get(node), files: new Map(files.map((f) => [f.path, f])), units: new Map(units.map((u) => [u.name, u])) });
  }

  /**
   * The daemon rebooted `node` into `image` with `deployment`; a deployment of another image leaves the booted one
   * as the rollback deployment. `keepsOldEtc`: the fault's host keeps the /etc of the deployment it leaves.
   */
  boot(node: string, image: BootedImage, deployment: DeploymentConfig = this.get(node).deployment, atMs = image.timestampMs, keepsOldEtc = false): void {
    const before = this.get(node);
    const sameImage = before.booted.pullspec === image.pullspec && before.booted.content.digest === image.content.digest;
    const etcKeptFrom = !keepsOldEtc ? undefined : sameImage ? before.etcKeptFrom : { pullspec: before.booted.pullspec, deployment: before.deployment };
    const booted: HostOs = { ...before, booted: sameImage ? before.booted : image, previous: sameImage ? before.previous : before.booted, deployment, bootedAtMs: atMs, etcKeptFrom };
    this.hosts.set(node, booted);
    for (const listener of this.bootListeners) listener(node, booted);
  }

  /** Tells `listener` of every boot (the node roots start making the booted tree before anyone reads the node). */
  onBoot(listener: (node: string, os: HostOs) => void): void {
    this.bootListeners.push(listener);
  }

  forget(node: string): void {
    this.hosts.delete(node);
  }
}
