/**
 * The Ignition spec 3.2 types as the MCO's vendored library (coreos/ignition v2.13) declares them: for each struct, its
 * fields in declaration order with their JSON names, Go types and omitempty, the key of list items (Key()), and the
 * lists merged by concatenation (IgnoreDuplicates) or sharing one key space (MergedKeys). Facts of the format; the
 * decoder, merge, printer and validator of this folder are driven by it.
 */

export type FieldKind =
  | { t: 'str' } // Go string (a primitive: the child's value always wins in a merge, even when empty)
  | { t: 'int' }
  | { t: 'pstr' } // *string
  | { t: 'pint' }
  | { t: 'pbool' }
  | { t: 'struct'; of: string }
  | { t: 'pstruct'; of: string }
  | { t: 'embed'; of: string } // an anonymous struct: its fields live in the same JSON object
  | { t: 'list'; of: string }; // of: a struct type, or 'string:<Go type>' for named string types

export interface Field {
  json: string;
  go: string;
  kind: FieldKind;
  omitempty: boolean;
}

export interface StructType {
  fields: Field[];
  /** The Go type's name where the key here is another (a later spec's variant of a struct). */
  goName?: string;
  /** The Key() of list items of this type. */
  key?: (item: Obj) => string;
  /** IgnoreDuplicates(): list fields (Go names) merged by concatenation. */
  ignoreDups?: string[];
  /** MergedKeys(): list fields (Go names) that share one key space. */
  mergedKeys?: Record<string, string>;
}

export type Obj = Record<string, unknown>;

const f = (json: string, go: string, kind: FieldKind, omitempty = true): Field => ({ json, go, kind, omitempty });
const STR: FieldKind = { t: 'str' };
const INT: FieldKind = { t: 'int' };
const PSTR: FieldKind = { t: 'pstr' };
const PINT: FieldKind = { t: 'pint' };
const PBOOL: FieldKind = { t: 'pbool' };
const S = (of: string): FieldKind => ({ t: 'struct', of });
const P = (of: string): FieldKind => ({ t: 'pstruct', of });
const E = (of: string): FieldKind => ({ t: 'embed', of });
const L = (of: string): FieldKind => ({ t: 'list', of });
export const byName = (item: Obj): string => String(item.name ?? '');
export const byPath = (item: Obj): string => String(item.path ?? '');
const byDevice = (item: Obj): string => String(item.device ?? '');

export const TYPES: Record<string, StructType> = {
  Config: { fields: [f('ignition', 'Ignition', S('Ignition'), false), f('passwd', 'Passwd', S('Passwd')), f('storage', 'Storage', S('Storage')), f('systemd', 'Systemd', S('Systemd'))] },
  // spec 3.3 and 3.4 (Ignition v2.15, which release-4.13 vendors): the same config with kernel arguments, which the MCO
  // takes out before it translates down to 3.2; the other 3.3/3.4 additions (LUKS, Tang) are not read here
  Config34: {
    goName: 'Config',
    fields: [f('ignition', 'Ignition', S('Ignition'), false), f('kernelArguments', 'KernelArguments', S('KernelArguments')), f('passwd', 'Passwd', S('Passwd')), f('storage', 'Storage', S('Storage')), f('systemd', 'Systemd', S('Systemd'))],
  },
  KernelArguments: { fields: [f('shouldExist', 'ShouldExist', L('string:types.KernelArgument')), f('shouldNotExist', 'ShouldNotExist', L('string:types.KernelArgument'))] },
  Ignition: {
    fields: [f('config', 'Config', S('IgnitionConfig')), f('proxy', 'Proxy', S('Proxy')), f('security', 'Security', S('Security')), f('timeouts', 'Timeouts', S('Timeouts')), f('version', 'Version', STR)],
  },
  IgnitionConfig: { fields: [f('merge', 'Merge', L('Resource')), f('replace', 'Replace', S('Resource'))] },
  Proxy: { fields: [f('httpProxy', 'HTTPProxy', PSTR), f('httpsProxy', 'HTTPSProxy', PSTR), f('noProxy', 'NoProxy', L('string:types.NoProxyItem'))] },
  Security: { fields: [f('tls', 'TLS', S('TLS'))] },
  TLS: { fields: [f('certificateAuthorities', 'CertificateAuthorities', L('Resource'))] },
  Timeouts: { fields: [f('httpResponseHeaders', 'HTTPResponseHeaders', PINT), f('httpTotal', 'HTTPTotal', PINT)] },
  Resource: {
    fields: [f('compression', 'Compression', PSTR), f('httpHeaders', 'HTTPHeaders', L('HTTPHeader')), f('source', 'Source', PSTR), f('verification', 'Verification', S('Verification'))],
    key: (item) => (item.source === undefined ? '' : String(item.source)),
  },
  HTTPHeader: { fields: [f('name', 'Name', STR, false), f('value', 'Value', PSTR)], key: byName },
  Verification: { fields: [f('hash', 'Hash', PSTR)] },
  Passwd: { fields: [f('groups', 'Groups', L('PasswdGroup')), f('users', 'Users', L('PasswdUser'))] },
  PasswdGroup: {
    fields: [f('gid', 'Gid', PINT), f('name', 'Name', STR, false), f('passwordHash', 'PasswordHash', PSTR), f('shouldExist', 'ShouldExist', PBOOL), f('system', 'System', PBOOL)],
    key: byName,
  },
  PasswdUser: {
    fields: [
      f('gecos', 'Gecos', PSTR),
      f('groups', 'Groups', L('string:types.Group')),
      f('homeDir', 'HomeDir', PSTR),
      f('name', 'Name', STR, false),
      f('noCreateHome', 'NoCreateHome', PBOOL),
      f('noLogInit', 'NoLogInit', PBOOL),
      f('noUserGroup', 'NoUserGroup', PBOOL),
      f('passwordHash', 'PasswordHash', PSTR),
      f('primaryGroup', 'PrimaryGroup', PSTR),
      f('sshAuthorizedKeys', 'SSHAuthorizedKeys', L('string:types.SSHAuthorizedKey')),
      f('shell', 'Shell', PSTR),
      f('shouldExist', 'ShouldExist', PBOOL),
      f('system', 'System', PBOOL),
      f('uid', 'UID', PINT),
    ],
    key: byName,
  },
  Storage: {
    fields: [
      f('directories', 'Directories', L('Directory')),
      f('disks', 'Disks', L('Disk')),
      f('files', 'Files', L('File')),
      f('filesystems', 'Filesystems', L('Filesystem')),
      f('links', 'Links', L('Link')),
      f('luks', 'Luks', L('Luks')),
      f('raid', 'Raid', L('Raid')),
    ],
    mergedKeys: { Directories: 'Node', Files: 'Node', Links: 'Node' },
  },
  Node: { fields: [f('group', 'Group', S('NodeGroup')), f('overwrite', 'Overwrite', PBOOL), f('path', 'Path', STR, false), f('user', 'User', S('NodeUser'))], key: byPath },
  NodeGroup: { fields: [f('id', 'ID', PINT), f('name', 'Name', PSTR)] },
  NodeUser: { fields: [f('id', 'ID', PINT), f('name', 'Name', PSTR)] },
  Directory: { fields: [f('', 'Node', E('Node')), f('', 'DirectoryEmbedded1', E('DirectoryEmbedded1'))], key: byPath },
  DirectoryEmbedded1: { fields: [f('mode', 'Mode', PINT)] },
  File: { fields: [f('', 'Node', E('Node')), f('', 'FileEmbedded1', E('FileEmbedded1'))], key: byPath, ignoreDups: ['Append'] },
  FileEmbedded1: { fields: [f('append', 'Append', L('Resource')), f('contents', 'Contents', S('Resource')), f('mode', 'Mode', PINT)], ignoreDups: ['Append'] },
  Link: { fields: [f('', 'Node', E('Node')), f('', 'LinkEmbedded1', E('LinkEmbedded1'))], key: byPath },
  LinkEmbedded1: { fields: [f('hard', 'Hard', PBOOL), f('target', 'Target', STR, false)] },
  Disk: { fields: [f('device', 'Device', STR, false), f('partitions', 'Partitions', L('Partition')), f('wipeTable', 'WipeTable', PBOOL)], key: byDevice },
  Partition: {
    fields: [
      f('guid', 'GUID', PSTR),
      f('label', 'Label', PSTR),
      f('number', 'Number', INT),
      f('resize', 'Resize', PBOOL),
      f('shouldExist', 'ShouldExist', PBOOL),
      f('sizeMiB', 'SizeMiB', PINT),
      f('startMiB', 'StartMiB', PINT),
      f('typeGuid', 'TypeGUID', PSTR),
      f('wipePartitionEntry', 'WipePartitionEntry', PBOOL),
    ],
    key: (item) => (item.number ? `number:${item.number}` : item.label !== undefined ? `label:${item.label}` : ''),
  },
  Filesystem: {
    fields: [
      f('device', 'Device', STR, false),
      f('format', 'Format', PSTR),
      f('label', 'Label', PSTR),
      f('mountOptions', 'MountOptions', L('string:types.MountOption')),
      f('options', 'Options', L('string:types.FilesystemOption')),
      f('path', 'Path', PSTR),
      f('uuid', 'UUID', PSTR),
      f('wipeFilesystem', 'WipeFilesystem', PBOOL),
    ],
    key: byDevice,
    ignoreDups: ['Options', 'MountOptions'],
  },
  Luks: {
    fields: [
      f('clevis', 'Clevis', P('Clevis')),
      f('device', 'Device', PSTR),
      f('keyFile', 'KeyFile', S('Resource')),
      f('label', 'Label', PSTR),
      f('name', 'Name', STR, false),
      f('options', 'Options', L('string:types.LuksOption')),
      f('uuid', 'UUID', PSTR),
      f('wipeVolume', 'WipeVolume', PBOOL),
    ],
    key: byName,
    ignoreDups: ['Options'],
  },
  Clevis: { fields: [f('custom', 'Custom', P('Custom')), f('tang', 'Tang', L('Tang')), f('threshold', 'Threshold', PINT), f('tpm2', 'Tpm2', PBOOL)] },
  Custom: { fields: [f('config', 'Config', STR, false), f('needsNetwork', 'NeedsNetwork', PBOOL), f('pin', 'Pin', STR, false)] },
  Tang: { fields: [f('thumbprint', 'Thumbprint', PSTR), f('url', 'URL', STR)], key: (item) => String(item.url ?? '') },
  Raid: {
    fields: [f('devices', 'Devices', L('string:types.Device'), false), f('level', 'Level', STR, false), f('name', 'Name', STR, false), f('options', 'Options', L('string:types.RaidOption')), f('spares', 'Spares', PINT)],
    key: byName,
    ignoreDups: ['Options'],
  },
  Systemd: { fields: [f('units', 'Units', L('Unit'))] },
  Unit: { fields: [f('contents', 'Contents', PSTR), f('dropins', 'Dropins', L('Dropin')), f('enabled', 'Enabled', PBOOL), f('mask', 'Mask', PBOOL), f('name', 'Name', STR, false)], key: byName },
  Dropin: { fields: [f('contents', 'Contents', PSTR), f('name', 'Name', STR, false)], key: byName },
};

/** The fields of a struct with its embedded structs' fields in place, each with the Go struct it belongs to. */
const flatCache = new Map<string, Field[]>();

export function flatFields(type: string): Field[] {
  const cached = flatCache.get(type);
  if (cached) return cached;
  const out: Field[] = [];
  for (const field of TYPES[type]!.fields) {
    if (field.kind.t === 'embed') out.push(...flatFields(field.kind.of));
    else out.push(field);
  }
  flatCache.set(type, out);
  return out;
}
