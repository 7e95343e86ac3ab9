/**
 * Whether the 4.12 daemon can move a node from one rendered config to another in place, and when not, the reason it
 * gives (openshift/machine-config-operator pkg/daemon/update.go at 3943ef1d0: reconcilable, verifyUserFields,
 * checkFIPS). A node refused this way is not drained: the daemon marks it Unreconcilable with
 * `can't reconcile config OLD with NEW: <reason>` and leaves it until its desired config changes.
 *
 * Sections compare as the daemon's reflect.DeepEqual of the parsed configs. The rendered configs the daemon reads
 * were marshalled with omitempty, so an empty list and an absent one are the same here (semanticEqual).
 */
import { semanticEqual } from '../equality.js';
import type { IgnitionConfig, MachineConfig } from '../mco/types.js';

type Section = Record<string, unknown> | undefined;
type User = { name: string; sshAuthorizedKeys?: string[]; [k: string]: unknown };

const CORE_USER = 'core';
/** Storage sections the daemon cannot change on a running node, in the order it checks them. */
const FIXED_STORAGE = ['disks', 'filesystems', 'raid', 'directories'] as const;

/** reconcilable(): the reason the change from `from` to `to` cannot be applied in place, or undefined. */
export function unreconcilableReason(from: MachineConfig | undefined, to: MachineConfig, nodeFips = false): string | undefined {
  const oldIgn: IgnitionConfig = from?.spec?.config ?? {};
  const newIgn: IgnitionConfig = to.spec?.config ?? {};
  const passwd = passwdReason(oldIgn.passwd as Section, newIgn.passwd as Section);
  if (passwd) return passwd;
  const oldStorage = (oldIgn.storage ?? {}) as Record<string, unknown>;
  const newStorage = (newIgn.storage ?? {}) as Record<string, unknown>;
  for (const section of FIXED_STORAGE) {
    if (!semanticEqual(oldStorage[section], newStorage[section])) return `ignition ${section} section contains changes`;
  }
  // links may go (an old config's links removed on upgrade, BZ 1677198), never come
  const newLinks = (newStorage.links ?? []) as unknown[];
  if (!semanticEqual(oldStorage.links, newStorage.links) && newLinks.length) return 'ignition links section contains changes';
  // an append is not idempotent: only a reprovision can apply it
  for (const file of newIgn.storage?.files ?? []) {
    if (Array.isArray(file.append) && file.append.length) return `ignition file ${file.path} includes append`;
  }
  if ((to.spec?.fips === true) !== nodeFips) return 'detected change to FIPS flag; refusing to modify FIPS on a running cluster';
  return undefined;
}

/** The node's Unreconcilable reason, as update() wraps reconcilable's error. */
export function unreconcilableMessage(fromName: string, toName: string, reason: string): string {
  return `can't reconcile config ${fromName} with ${toName}: ${reason}`;
}

/** Only the SSH keys of `core` may change: no groups, no other users, no other field of core, core not removed. */
function passwdReason(oldPasswd: Section, newPasswd: Section): string | undefined {
  if (semanticEqual(oldPasswd, newPasswd)) return undefined;
  if (!semanticEqual(oldPasswd?.groups, newPasswd?.groups)) return 'ignition Passwd Groups section contains changes';
  const oldUsers = (oldPasswd?.users ?? []) as User[];
  const newUsers = (newPasswd?.users ?? []) as User[];
  if (semanticEqual(oldUsers, newUsers)) return undefined;
  if (oldUsers.length > 0 && newUsers.length === 0) return 'ignition passwd user section contains unsupported changes: user core may not be deleted';
  if (newUsers.some((u) => u.name !== CORE_USER)) return 'ignition passwd user section contains unsupported changes: non-core user';
  // verifyUserFields looks at the last user only, as upstream does
  const last = newUsers[newUsers.length - 1]!;
  if (last.name !== CORE_USER || !(last.sshAuthorizedKeys ?? []).length) {
    return 'ignition passwd user section contains unsupported changes: user must be core and have 1 or more sshKeys';
  }
  const { name: _name, sshAuthorizedKeys: _keys, ...rest } = last;
  if (!semanticEqual(rest, {})) return 'ignition passwd user section contains unsupported changes: non-sshKey changes';
  return undefined;
}

/** updateSSHKeys: every key of every user (all are core once reconcilable passed), one per line. */
export function authorizedKeysOf(config: IgnitionConfig | null | undefined): string | undefined {
  const users = (config?.passwd?.users ?? []) as User[];
  if (!users.length) return undefined;
  return users.flatMap((u) => u.sshAuthorizedKeys ?? []).map((k) => `${k}\n`).join('');
}
