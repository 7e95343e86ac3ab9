/**
 * What a rendered MachineConfig puts on a node besides its OS image, and what changing from one config to another
 * costs, as the 4.12 daemon decides it (openshift/machine-config-operator pkg/daemon/update.go at 3943ef1d0, the FIX
 * commit: newMachineConfigDiff, calculatePostConfigChangeAction(FromFileDiffs), getSupportedExtensions, switchKernel).
 *
 * - OS image, kernel arguments, FIPS, units, kernel type and extensions changes reboot the node;
 * - file changes reboot, except /etc/kubernetes/kubelet-ca.crt and /var/lib/kubelet/config.json (nothing to do) and
 *   /etc/containers/registries.conf, policy.json and the no-reboot GPG key path (crio is reloaded);
 * - SSH key changes (passwd) do nothing more than write the keys.
 */
import { gunzipSync } from 'node:zlib';
import type { IgnitionFile, IgnitionUnit, MachineConfig } from '../mco/types.js';
import type { DeploymentConfig, HostFile, HostUnit } from '../kubelet/hosts.js';
import { authorizedKeysOf } from './reconcilable.js';

export interface NodeConfig {
  osImageURL: string;
  deployment: DeploymentConfig;
  files: HostFile[];
  units: HostUnit[];
  fips: boolean;
  /** The `passwd` section as JSON, compared as a whole like the daemon's reflect.DeepEqual. */
  passwd: string;
  /** What updateSSHKeys writes to core's authorized_keys; undefined when the config names no user (nothing written). */
  authorizedKeys?: string;
}

/** 4.12 on RHCOS 8 (not FCOS, not EL9): updateSSHKeys writes the keys here, core's own, 0600 in a 0700 folder. */
export const CORE_AUTHORIZED_KEYS = '/home/core/.ssh/authorized_keys';

/** The files the daemon puts on the node: the config's, and core's authorized_keys when the config has users. */
export function hostFilesOf(config: NodeConfig): HostFile[] {
  if (config.authorizedKeys === undefined) return config.files;
  const keys: HostFile = { path: CORE_AUTHORIZED_KEYS, mode: 0o600, contents: Buffer.from(config.authorizedKeys), owner: { user: 'core', group: 'core' } };
  return [...config.files.filter((f) => f.path !== CORE_AUTHORIZED_KEYS), keys];
}

/** update.go getSupportedExtensions: the RHCOS extensions and the packages each installs. */
export const SUPPORTED_EXTENSIONS: Readonly<Record<string, readonly string[]>> = {
  usbguard: ['usbguard'],
  kerberos: ['krb5-workstation', 'libkadm5'],
  'kernel-devel': ['kernel-devel', 'kernel-headers'],
  'sandboxed-containers': ['kata-containers'],
};

/** update.go switchKernel: what `rpm-ostree override remove … --install …` swaps for kernelType realtime. */
export const DEFAULT_KERNEL_PACKAGES = ['kernel', 'kernel-core', 'kernel-modules', 'kernel-modules-extra'];
export const REALTIME_KERNEL_PACKAGES = ['kernel-rt-core', 'kernel-rt-modules', 'kernel-rt-modules-extra', 'kernel-rt-kvm'];

const NO_ACTION_FILES = ['/etc/kubernetes/kubelet-ca.crt', '/var/lib/kubelet/config.json'];
const RELOAD_CRIO_FILES = ['/etc/containers/registries.conf', '/etc/machine-config-daemon/no-reboot/containers-gpg.pub', '/etc/containers/policy.json'];

export type PostConfigChangeAction = 'reboot' | 'reload crio' | 'none';

/** Ignition's file contents: `data:` URLs (percent-encoded or `;base64`), optionally gzip-compressed. */
export function decodeFileContents(file: IgnitionFile): Buffer {
  const source = file.contents?.source;
  if (source === undefined || source === null) return Buffer.alloc(0);
  const m = /^data:([^,]*),(.*)$/s.exec(String(source));
  if (!m) throw new Error(`failed to retrieve file ${file.path}: the reference daemon reads only data: URLs, got ${String(source).slice(0, 40)}`);
  const raw = /;base64$/i.test(m[1]!) ? Buffer.from(m[2]!, 'base64') : Buffer.from(decodeURIComponent(m[2]!), 'utf8');
  const compression = file.contents?.compression;
  if (compression === 'gzip') return gunzipped(file.path, raw);
  if (compression) throw new Error(`could not decode file ${JSON.stringify(file.path)}: unsupported compression type ${JSON.stringify(String(compression))}`);
  return raw;
}

const GZIP_MAGIC = [0x1f, 0x8b, 0x08];

/** ctrlcommon.DecodeIgnitionFileContents' gzip case, with the errors of Go's gzip reader wrapped as writeFiles does. */
function gunzipped(path: string, raw: Buffer): Buffer {
  const prefix = `could not decode file ${JSON.stringify(path)}`;
  // Go's gzip.NewReader rejects a wrong header before reading any data; zlib's own text ("incorrect header check")
  // is not what a node shows
  if (raw.length < 10 || GZIP_MAGIC.some((b, i) => raw[i] !== b)) throw new Error(`${prefix}: could not create gzip reader: ${raw.length < 10 ? 'unexpected EOF' : 'gzip: invalid header'}`);
  try {
    return gunzipSync(new Uint8Array(raw));
  } catch (err) {
    throw new Error(`${prefix}: failed decompressing: ${/unexpected end/i.test(String(err)) ? 'unexpected EOF' : 'gzip: invalid checksum'}`);
  }
}

function unitOf(u: IgnitionUnit): HostUnit {
  return { name: u.name, enabled: u.enabled, mask: typeof u.mask === 'boolean' ? u.mask : undefined, contents: u.contents };
}

/** What the config puts on a node. Throws when a file's contents cannot be read, as the daemon's update fails. */
export function nodeConfigOf(mc: MachineConfig | undefined, defaultExtensionsImage?: string): NodeConfig {
  const spec = mc?.spec ?? {};
  const config = spec.config ?? {};
  // later entries of the same path win, as when Ignition writes them in order
  const files = new Map<string, HostFile>();
  for (const f of config.storage?.files ?? []) files.set(f.path, { path: f.path, mode: typeof f.mode === 'number' ? f.mode : 0o644, contents: decodeFileContents(f), owner: ownerOf(f) });
  return {
    osImageURL: spec.osImageURL ?? '',
    deployment: {
      kernelArguments: [...(spec.kernelArguments ?? [])],
      extensions: [...(spec.extensions ?? [])],
      extensionsImage: spec.baseOSExtensionsContainerImage || defaultExtensionsImage || undefined,
      kernelType: spec.kernelType === 'realtime' ? 'realtime' : 'default',
    },
    files: [...files.values()],
    units: (config.systemd?.units ?? []).map(unitOf),
    fips: spec.fips === true,
    passwd: JSON.stringify(config.passwd ?? {}),
    authorizedKeys: authorizedKeysOf(config),
  };
}

/** getFileOwnership: an id wins over a name; neither is root. */
function ownerOf(file: IgnitionFile): HostFile['owner'] {
  const pick = (o: unknown): number | string | undefined => {
    const { id, name } = (o ?? {}) as { id?: unknown; name?: unknown };
    if (typeof id === 'number') return id;
    return typeof name === 'string' && name ? name : undefined;
  };
  const user = pick(file.user);
  const group = pick(file.group);
  return user === undefined && group === undefined ? undefined : { user, group };
}

export interface ConfigDiff {
  osUpdate: boolean;
  kargs: boolean;
  fips: boolean;
  passwd: boolean;
  files: boolean;
  units: boolean;
  kernelType: boolean;
  extensions: boolean;
}

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
const fileKey = (f: HostFile): string => `${f.mode}:${JSON.stringify(f.owner ?? {})}:${f.contents.toString('base64')}`;
const unitKey = (u: HostUnit): string => JSON.stringify([u.enabled, u.mask, u.contents]);

/** newMachineConfigDiff: empty and absent lists are the same; lists compare in order. */
export function configDiff(from: NodeConfig, to: NodeConfig): ConfigDiff {
  const fromFiles = new Map(from.files.map((f) => [f.path, fileKey(f)]));
  const fromUnits = new Map(from.units.map((u) => [u.name, unitKey(u)]));
  return {
    osUpdate: from.osImageURL !== to.osImageURL,
    kargs: !sameList(from.deployment.kernelArguments, to.deployment.kernelArguments),
    fips: from.fips !== to.fips,
    passwd: from.passwd !== to.passwd,
    files: from.files.length !== to.files.length || to.files.some((f) => fromFiles.get(f.path) !== fileKey(f)),
    units: from.units.length !== to.units.length || to.units.some((u) => fromUnits.get(u.name) !== unitKey(u)),
    kernelType: from.deployment.kernelType !== to.deployment.kernelType,
    extensions: !sameList(from.deployment.extensions, to.deployment.extensions),
  };
}

/** ctrlcommon.CalculateConfigFileDiffs: the paths added, removed or changed. */
export function changedFilePaths(from: NodeConfig, to: NodeConfig): string[] {
  const before = new Map(from.files.map((f) => [f.path, fileKey(f)]));
  const after = new Map(to.files.map((f) => [f.path, fileKey(f)]));
  return [...new Set([...before.keys(), ...after.keys()])].filter((p) => before.get(p) !== after.get(p)).sort();
}

/** calculatePostConfigChangeAction (without the force file). */
export function postConfigChangeAction(diff: ConfigDiff, changedFiles: string[]): PostConfigChangeAction {
  if (diff.osUpdate || diff.kargs || diff.fips || diff.units || diff.kernelType || diff.extensions) return 'reboot';
  let action: PostConfigChangeAction = 'none';
  for (const path of changedFiles) {
    if (NO_ACTION_FILES.includes(path)) continue;
    if (RELOAD_CRIO_FILES.includes(path)) action = 'reload crio';
    else return 'reboot';
  }
  return action;
}

/** validateExtensions: the error the daemon fails its update with. */
export function invalidExtensions(extensions: readonly string[]): string | undefined {
  const invalid = extensions.filter((e) => !(e in SUPPORTED_EXTENSIONS));
  return invalid.length ? `invalid extensions found: [${invalid.join(' ')}]` : undefined;
}

/** What the diff says the daemon does, in the words of osChangesString. */
export function osChangesString(diff: ConfigDiff): string {
  return [diff.osUpdate && 'Upgrading OS', diff.extensions && 'Installing extensions', diff.kernelType && 'Changing kernel type', diff.kargs && 'Changing kernel arguments'].filter(Boolean).join('; ');
}
