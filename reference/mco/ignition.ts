/**
 * The Ignition side of rendering, as the MCO does it with the Ignition library it vendors (coreos/ignition v2.13,
 * spec 3.2 types): read a MachineConfig's `spec.config` the way Go's JSON decoder fills the typed structs, accept
 * spec 3.2, 3.1, 3.0 and 2.x, validate, merge configs field by field (the library's keyed merge), and print the merged
 * config the way it lands in the rendered MachineConfig.
 *
 * The types below are the 3.2 schema (field names, Go types, omitempty), which is a fact of the format. The validation
 * covers the rules a hand-written MachineConfig trips over (paths, unit and drop-in names, duplicates, file modes,
 * overwrite without a source, source URLs, compression); error texts are the library's, with the JSON position it
 * reports. The 2.x reader covers files, units and users, which is what 2.x MachineConfigs carry in practice.
 */

// ---------------------------------------------------------------- schema

type FieldKind =
  | { t: 'str' } // Go string (a primitive: the child's value always wins in a merge, even when empty)
  | { t: 'int' }
  | { t: 'pstr' } // *string
  | { t: 'pint' }
  | { t: 'pbool' }
  | { t: 'struct'; of: string }
  | { t: 'pstruct'; of: string }
  | { t: 'embed'; of: string } // an anonymous struct: its fields live in the same JSON object
  | { t: 'list'; of: string }; // of: a struct type, or 'string:<Go type>' for named string types

interface Field {
  json: string;
  go: string;
  kind: FieldKind;
  omitempty: boolean;
}

interface StructType {
  fields: Field[];
  /** The Key() of list items of this type. */
  key?: (item: Obj) => string;
  /** IgnoreDuplicates(): list fields (Go names) merged by concatenation. */
  ignoreDups?: string[];
  /** MergedKeys(): list fields (Go names) that share one key space. */
  mergedKeys?: Record<string, string>;
}

type Obj = Record<string, unknown>;

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
const byName = (item: Obj): string => String(item.name ?? '');
const byPath = (item: Obj): string => String(item.path ?? '');
const byDevice = (item: Obj): string => String(item.device ?? '');

const TYPES: Record<string, StructType> = {
  Config: { fields: [f('ignition', 'Ignition', S('Ignition'), false), f('passwd', 'Passwd', S('Passwd')), f('storage', 'Storage', S('Storage')), f('systemd', 'Systemd', S('Systemd'))] },
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

function flatFields(type: string): Field[] {
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

// ---------------------------------------------------------------- errors

export class IgnitionError extends Error {}

/** Where each value of the compact JSON text starts, by Ignition's path notation (`$.storage.files.0.path`). */
function valueOffsets(text: string): Map<string, number> {
  const offsets = new Map<string, number>();
  let i = 0;
  const walk = (path: string): void => {
    offsets.set(path, text[i] === '{' || text[i] === '[' ? i + 1 : i);
    if (text[i] === '{') {
      i++;
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        const keyEnd = stringEnd(text, i);
        const key = JSON.parse(text.slice(i, keyEnd)) as string;
        i = keyEnd + 1; // the colon
        walk(`${path}.${key}`);
        if (text[i++] === '}') return;
      }
    }
    if (text[i] === '[') {
      i++;
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        walk(`${path}.${n}`);
        if (text[i++] === ']') return;
      }
    }
    if (text[i] === '"') {
      i = stringEnd(text, i);
      return;
    }
    while (i < text.length && !',}]'.includes(text[i]!)) i++;
  };
  walk('$');
  return offsets;
}

/** Positions in the report count UTF-8 bytes. */
function byteOffset(text: string, index: number): number {
  return index < 0 ? index : Buffer.byteLength(text.slice(0, index), 'utf8');
}

function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

/** The end of the value starting at `start` (Go's decoder reports type errors at the byte after the value). */
function valueEnd(text: string, start: number): number {
  if (text[start] === '"') return stringEnd(text, start);
  if (text[start] === '{' || text[start] === '[') {
    return start + 1; // Go reports objects and arrays of the wrong type right after the opening bracket
  }
  let i = start;
  while (i < text.length && !',}]'.includes(text[i]!)) i++;
  return i;
}

interface ReportEntry {
  path: string;
  message: string;
}

const SPEC_NAMES = { '3.2': 'v3.2', '3.1': 'v3.1', '3.0': 'v3.0' } as const;

function invalidConfigError(spec: keyof typeof SPEC_NAMES, report: string): IgnitionError {
  return new IgnitionError(`parsing Ignition config spec ${SPEC_NAMES[spec]} failed with error: config is not valid\nReport: ${report}`);
}

// ---------------------------------------------------------------- decoding (Go's encoding/json into the 3.2 types)

interface TypeErrorInfo {
  value: string;
  struct: string;
  fieldStack: string[];
  goType: string;
  /** JSON path of the offending value, to find its end offset. */
  path: string;
}

class Decoder {
  firstError: TypeErrorInfo | undefined;

  decodeStruct(type: string, json: unknown, path: string, stack: string[]): Obj {
    const out: Obj = {};
    const input = json as Obj;
    const fields = flatFields(type);
    for (const key of Object.keys(input)) {
      const field = fields.find((fl) => fl.json === key) ?? fields.find((fl) => fl.json.toLowerCase() === key.toLowerCase());
      if (!field) continue; // unknown keys are ignored by the decoder (Ignition only warns)
      const value = input[key];
      if (value === null) continue;
      const decoded = this.decodeValue(field.kind, value, `${path}.${key}`, [...stack, field.json], type);
      if (decoded !== undefined) out[field.json] = decoded;
    }
    return out;
  }

  private decodeValue(kind: FieldKind, value: unknown, path: string, stack: string[], struct: string): unknown {
    const jsonKind = Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'bool' : 'string';
    const mismatch = (goType: string, shown = jsonKind): undefined => {
      this.firstError ??= { value: shown, struct, fieldStack: stack, goType, path };
      return undefined;
    };
    switch (kind.t) {
      case 'str':
      case 'pstr':
        return jsonKind === 'string' ? value : mismatch('string');
      case 'int':
      case 'pint':
        if (jsonKind !== 'number') return mismatch('int');
        if (!Number.isInteger(value) || Math.abs(value as number) > 2 ** 63) return mismatch('int', `number ${String(value)}`);
        return value;
      case 'pbool':
        return jsonKind === 'bool' ? value : mismatch('bool');
      case 'struct':
      case 'pstruct':
        if (jsonKind !== 'object') return mismatch(`types.${kind.of}`);
        return this.decodeStruct(kind.of, value, path, stack);
      case 'list': {
        if (jsonKind !== 'array') return mismatch(`[]${kind.of.startsWith('string:') ? kind.of.slice(7) : `types.${kind.of}`}`);
        const items: unknown[] = [];
        (value as unknown[]).forEach((item, n) => {
          if (kind.of.startsWith('string:')) {
            if (item === null) items.push('');
            else if (typeof item !== 'string') mismatch(kind.of.slice(7), Array.isArray(item) ? 'array' : typeof item === 'object' ? 'object' : typeof item === 'number' ? 'number' : 'bool');
            else items.push(item);
          } else if (item === null) {
            items.push({});
          } else if (typeof item !== 'object' || Array.isArray(item)) {
            mismatch(`types.${kind.of}`, Array.isArray(item) ? 'array' : typeof item === 'number' ? 'number' : typeof item === 'boolean' ? 'bool' : 'string');
            items.push({});
          } else {
            items.push(this.decodeStruct(kind.of, item, `${path}.${n}`, stack));
          }
        });
        return items;
      }
      case 'embed':
        throw new Error('embedded fields are flattened');
    }
  }
}

// ---------------------------------------------------------------- zero values, merge, marshal

function isZeroValue(kind: FieldKind, value: unknown): boolean {
  if (value === undefined) return true;
  if (kind.t === 'str') return value === '';
  if (kind.t === 'int') return value === 0;
  if (kind.t === 'struct') return isZeroStruct(kind.of, value as Obj);
  return false; // pointers and slices are zero only when nil
}

function isZeroStruct(type: string, obj: Obj): boolean {
  return TYPES[type]!.fields.every((field) => (field.kind.t === 'embed' ? isZeroStruct(field.kind.of, obj) : isZeroValue(field.kind, obj[field.json])));
}

function keyOf(of: string, item: unknown): string {
  if (of.startsWith('string:')) return String(item);
  return TYPES[of]!.key!(item as Obj);
}

/** The Ignition library's merge: child fields override parent fields; keyed lists merge entries with equal keys. */
export function mergeIgnitionConfigs(parent: Obj, child: Obj): Obj {
  return mergeStruct('Config', parent, child);
}

function mergeStruct(type: string, parent: Obj, child: Obj, into: Obj = {}): Obj {
  const info = TYPES[type]!;
  const ignore = new Set(info.ignoreDups ?? []);
  const handleOf = (goName: string): string => info.mergedKeys?.[goName] ?? goName;
  // every keyed entry of the child's lists, by (shared) key space
  const childEntries = new Map<string, { list: string; item: unknown }>();
  for (const field of info.fields) {
    if (field.kind.t !== 'list' || ignore.has(field.go)) continue;
    for (const item of (child[field.json] as unknown[] | undefined) ?? []) {
      childEntries.set(`${handleOf(field.go)}\0${keyOf(field.kind.of, item)}`, { list: field.go, item });
    }
  }
  for (const field of info.fields) {
    const { kind } = field;
    const p = parent[field.json];
    const c = child[field.json];
    const set = (value: unknown): void => {
      if (value === undefined) delete into[field.json];
      else into[field.json] = value;
    };
    switch (kind.t) {
      case 'str':
      case 'int':
        set(c);
        break;
      case 'pstr':
      case 'pint':
      case 'pbool':
        set(c !== undefined ? c : p);
        break;
      case 'pstruct':
        if (p !== undefined && c !== undefined) set(mergeStruct(kind.of, p as Obj, c as Obj));
        else set(c !== undefined ? c : p);
        break;
      case 'embed':
        if (isZeroStruct(kind.of, child)) copyFields(kind.of, parent, into);
        else if (isZeroStruct(kind.of, parent)) copyFields(kind.of, child, into);
        else mergeStruct(kind.of, parent, child, into);
        break;
      case 'struct':
        if (isZeroValue(kind, c)) set(p);
        else if (isZeroValue(kind, p)) set(c);
        else set(mergeStruct(kind.of, p as Obj, c as Obj));
        break;
      case 'list': {
        const pl = (p as unknown[] | undefined) ?? [];
        const cl = (c as unknown[] | undefined) ?? [];
        if (pl.length + cl.length === 0) {
          set(undefined);
          break;
        }
        if (ignore.has(field.go)) {
          set([...pl, ...cl]);
          break;
        }
        const result: unknown[] = [];
        const parentKeys = new Set(pl.map((item) => keyOf(kind.of, item)));
        for (const item of pl) {
          const entry = childEntries.get(`${handleOf(field.go)}\0${keyOf(kind.of, item)}`);
          if (!entry) {
            result.push(item);
          } else if (entry.list === field.go) {
            if (kind.of.startsWith('string:')) result.push(entry.item);
            else if (field.go === 'HTTPHeaders' && (entry.item as Obj).value === undefined) continue;
            else result.push(mergeStruct(kind.of, item as Obj, entry.item as Obj));
          } // else: the child has this key in another list of the same key space, which replaces it
        }
        for (const item of cl) if (!parentKeys.has(keyOf(kind.of, item))) result.push(item);
        set(result);
        break;
      }
    }
  }
  return into;
}

function copyFields(type: string, from: Obj, into: Obj): void {
  for (const field of flatFields(type)) {
    if (from[field.json] === undefined) delete into[field.json];
    else into[field.json] = from[field.json];
  }
}

/** The config as it is printed into the rendered MachineConfig: empty optional fields and empty objects left out. */
export function marshalIgnition(config: Obj): Obj {
  return marshalStruct('Config', config) ?? {};
}

function marshalStruct(type: string, obj: Obj): Obj | undefined {
  const out: Obj = {};
  for (const field of flatFields(type)) {
    const value = obj[field.json];
    const { kind } = field;
    let printed: unknown;
    switch (kind.t) {
      case 'str':
        printed = value ?? '';
        if (field.omitempty && printed === '') printed = undefined;
        break;
      case 'int':
        printed = value ?? 0;
        if (field.omitempty && printed === 0) printed = undefined;
        break;
      case 'pstr':
      case 'pint':
      case 'pbool':
        printed = value;
        break;
      case 'struct':
      case 'pstruct':
        printed = value === undefined ? undefined : marshalStruct(kind.of, value as Obj);
        if (printed === undefined && kind.t === 'struct' && !field.omitempty) printed = {};
        if (printed === undefined && kind.t === 'pstruct' && value !== undefined) printed = {};
        break;
      case 'list': {
        const items = value as unknown[] | undefined;
        if (!items || items.length === 0) printed = field.omitempty ? undefined : items ? [] : null;
        else printed = kind.of.startsWith('string:') ? [...items] : items.map((item) => marshalStruct(kind.of, item as Obj) ?? {});
        break;
      }
      case 'embed':
        break;
    }
    if (printed !== undefined) out[field.json] = printed;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

// ---------------------------------------------------------------- validation (spec 3.x)

const UNIT_TYPES = new Set(['.service', '.socket', '.device', '.mount', '.automount', '.swap', '.target', '.path', '.timer', '.snapshot', '.slice', '.scope']);

function validatePath(p: string): string | undefined {
  if (p === '') return 'path not specified';
  if (!p.startsWith('/')) return 'path not absolute';
  if (cleanPath(p) !== p) return 'path is not fully simplified';
  return undefined;
}

/** Go's path.Clean. */
function cleanPath(p: string): string {
  const rooted = p.startsWith('/');
  const parts: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
      else if (!rooted) parts.push('..');
    } else parts.push(part);
  }
  const joined = parts.join('/');
  return rooted ? `/${joined}` : joined || '.';
}

const URL_SCHEMES = new Set(['http', 'https', 'tftp', 's3', 'gs', 'data']);

function validateSource(source: string): string | undefined {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(source)?.[1];
  if (scheme === undefined) return 'invalid url scheme';
  if (!URL_SCHEMES.has(scheme.toLowerCase())) return 'invalid url scheme';
  if (scheme.toLowerCase() === 'data') return validateDataUrl(source.slice(scheme.length + 1));
  return undefined;
}

/** The data URL grammar of RFC 2397 as the dataurl package reads it. */
function validateDataUrl(rest: string): string | undefined {
  const comma = rest.indexOf(',');
  const head = comma < 0 ? rest : rest.slice(0, comma);
  if (head !== '') {
    const [media, ...params] = head.split(';');
    if (media !== '') {
      if (!/^[A-Za-z0-9!#$&^_.+-]+/.test(media!)) return 'invalid character for media type';
      const m = /^([A-Za-z0-9!#$&^_.+-]+)(\/)?([A-Za-z0-9!#$&^_.+-]*)$/.exec(media!);
      if (!m) return 'invalid character for media type';
      if (!m[2]) return comma < 0 && params.length === 0 ? 'missing media type slash' : 'invalid character for media type';
    }
    void params;
  }
  if (comma < 0) return 'missing comma';
  const data = rest.slice(comma + 1);
  for (let i = 0; i < data.length; i++) {
    const c = data[i]!;
    if (c === '%') {
      if (!/^[0-9A-Fa-f]{2}$/.test(data.slice(i + 1, i + 3))) {
        const bad = /^[0-9A-Fa-f]/.test(data[i + 1] ?? '') ? data[i + 2] : data[i + 1];
        return `rfc2396: invalid char 0x${(bad ?? '').charCodeAt(0).toString(16)} in unescape sequence`;
      }
      i += 2;
    } else if (!/[A-Za-z0-9\-_.!~*'();/?:@&=+$,]/.test(c)) {
      return 'invalid data character';
    }
  }
  return undefined;
}

interface ReportEntries {
  errors: ReportEntry[];
  warnings: ReportEntry[];
  /** Everything in the order the report prints it. */
  all: Array<ReportEntry & { kind: 'error' | 'warning' }>;
}

/**
 * The checks of Ignition's validator that MachineConfigs reach. The report lists first what the types' Validate
 * methods find, walking the config in struct field order, then the duplicate entries, walked the same way.
 */
function validateConfig(config: Obj): ReportEntries {
  const all: ReportEntries['all'] = [];
  const error = (path: string, message: string): void => void all.push({ kind: 'error', path, message });
  const warn = (path: string, message: string): void => void all.push({ kind: 'warning', path, message });
  const storage = (config.storage ?? {}) as Obj;
  const units = (((config.systemd as Obj | undefined)?.units ?? []) as Obj[]);
  const users = (((config.passwd as Obj | undefined)?.users ?? []) as Obj[]);
  const checkResource = (res: Obj, path: string): void => {
    if (res.compression !== undefined && res.compression !== '' && res.compression !== 'gzip') error(`${path}.compression`, 'invalid compression method');
    if (res.source !== undefined) {
      const problem = validateSource(String(res.source));
      if (problem) error(`${path}.source`, problem);
    }
  };
  const checkMode = (mode: unknown, path: string): void => {
    if (typeof mode === 'number' && (mode < 0 || mode > 0o7777)) error(path, 'illegal file mode');
  };
  const checkNodePath = (node: Obj, path: string): void => {
    const problem = validatePath(String(node.path ?? ''));
    if (problem) error(`${path}.path`, problem);
  };
  ((storage.directories ?? []) as Obj[]).forEach((dir, n) => {
    checkNodePath(dir, `$.storage.directories.${n}`);
    checkMode(dir.mode, `$.storage.directories.${n}.mode`);
  });
  ((storage.files ?? []) as Obj[]).forEach((file, n) => {
    const path = `$.storage.files.${n}`;
    const contents = (file.contents ?? {}) as Obj;
    checkNodePath(file, path);
    checkMode(file.mode, `${path}.mode`);
    if (file.overwrite === true && contents.source === undefined) error(`${path}.overwrite`, 'overwrite must be false if source is unspecified');
    ((file.append ?? []) as Obj[]).forEach((res, a) => checkResource(res, `${path}.append.${a}`));
    checkResource(contents, `${path}.contents`);
  });
  ((storage.links ?? []) as Obj[]).forEach((link, n) => checkNodePath(link, `$.storage.links.${n}`));
  units.forEach((unit, n) => {
    const path = `$.systemd.units.${n}`;
    const name = String(unit.name ?? '');
    if (!UNIT_TYPES.has(extension(name))) error(`${path}.name`, 'invalid systemd unit extension');
    const parsed = unit.contents === undefined ? [] : parseUnit(String(unit.contents));
    if (typeof parsed === 'string') error(`${path}.contents`, `invalid unit content: ${parsed}`);
    else if (unit.enabled === true && unit.contents && !parsed.some((option) => option.section === 'Install')) {
      warn(`${path}.contents`, `unit ${JSON.stringify(name)} is enabled, but has no install section so enable does nothing`);
    }
    ((unit.dropins ?? []) as Obj[]).forEach((dropin, d) => {
      const parsedDropin = dropin.contents === undefined ? [] : parseUnit(String(dropin.contents));
      if (typeof parsedDropin === 'string') error(`${path}.dropins.${d}.contents`, `invalid unit content: ${parsedDropin}`);
      if (extension(String(dropin.name ?? '')) !== '.conf') error(`${path}.dropins.${d}.name`, 'invalid systemd drop-in extension');
    });
  });
  // the duplicates pass
  const dupes = (items: unknown[], key: (item: unknown) => string, path: string, seen = new Set<string>()): void => {
    items.forEach((item, n) => {
      const k = key(item);
      if (seen.has(k)) error(`${path}.${n}`, 'duplicate entry defined');
      seen.add(k);
    });
  };
  dupes(users, (u) => String((u as Obj).name ?? ''), '$.passwd.users');
  users.forEach((user, n) => dupes((user.sshAuthorizedKeys ?? []) as unknown[], String, `$.passwd.users.${n}.sshAuthorizedKeys`));
  const nodes = new Set<string>();
  for (const list of ['directories', 'files', 'links'] as const) dupes((storage[list] ?? []) as unknown[], (node) => String((node as Obj).path ?? ''), `$.storage.${list}`, nodes);
  dupes(units, (u) => String((u as Obj).name ?? ''), '$.systemd.units');
  units.forEach((unit, n) => dupes((unit.dropins ?? []) as unknown[], (d) => String((d as Obj).name ?? ''), `$.systemd.units.${n}.dropins`));
  return { errors: all.filter((e) => e.kind === 'error'), warnings: all.filter((e) => e.kind === 'warning'), all };
}

function extension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot);
}

/**
 * go-systemd's unit reader, as far as validation needs it: the options with the section they sit in, or the error
 * text of an unterminated section header.
 */
function parseUnit(contents: string): Array<{ section: string; name: string }> | string {
  const options: Array<{ section: string; name: string }> = [];
  let section = '';
  for (const raw of contents.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    if (line.startsWith('[')) {
      if (!line.endsWith(']')) return 'unable to find end of section';
      section = line.slice(1, -1);
      continue;
    }
    const eq = line.indexOf('=');
    options.push({ section, name: (eq < 0 ? line : line.slice(0, eq)).trim() });
  }
  return options;
}

// ---------------------------------------------------------------- spec 2.x

/**
 * A 2.x config (files, units, users) as the MCO converts it to 3.2 (removeIgnDuplicateFilesUnitsUsers, then the
 * library's translation): duplicate files and units keep the last entry and come out last-first; every user must be
 * `core`, and their keys end up on one user, deduplicated; files default to overwrite and keep their mode.
 */
function convertSpec2(raw: Obj): Obj {
  const out: Obj = { ignition: { version: '3.2.0' } };
  const files = lastFirst(((raw.storage as Obj | undefined)?.files ?? []) as Obj[], byPath);
  if (files.length > 0) {
    out.storage = {
      files: files.map((file) => {
        const contents = (file.contents ?? {}) as Obj;
        const converted: Obj = { path: file.path ?? '', overwrite: file.overwrite ?? true, contents: { source: contents.source ?? '' } };
        if (contents.compression) (converted.contents as Obj).compression = contents.compression; // a string in spec 2: empty means none
        if (file.mode !== undefined) converted.mode = file.mode;
        return converted;
      }),
    };
  }
  const units = lastFirst(((raw.systemd as Obj | undefined)?.units ?? []) as Obj[], byName);
  if (units.length > 0) {
    out.systemd = {
      units: units.map((unit) => {
        const converted: Obj = { name: unit.name ?? '' };
        if (unit.contents !== undefined) converted.contents = unit.contents;
        const enabled = unit.enabled ?? unit.enable;
        if (enabled !== undefined) converted.enabled = enabled;
        if (unit.mask) converted.mask = true;
        const dropins = (unit.dropins ?? []) as Obj[];
        if (dropins.length > 0) converted.dropins = dropins.map((d) => ({ name: d.name ?? '', ...(d.contents !== undefined ? { contents: d.contents } : {}) }));
        return converted;
      }),
    };
  }
  const users = ((raw.passwd as Obj | undefined)?.users ?? []) as Obj[];
  if (users.length > 0) {
    const newest = users[users.length - 1]!;
    const keys = [...((newest.sshAuthorizedKeys ?? []) as string[])];
    for (let i = users.length - 1; i >= 0; i--) {
      if (users[i]!.name !== 'core') throw new IgnitionError(`unexpected user with name: ${String(users[i]!.name ?? '')}. Only core user is supported`);
      if (i < users.length - 1) keys.push(...((users[i]!.sshAuthorizedKeys ?? []) as string[]));
    }
    const converted: Obj = { name: 'core' };
    const unique = [...new Set(keys)];
    if (unique.length > 0) converted.sshAuthorizedKeys = unique;
    if (newest.passwordHash !== undefined) converted.passwordHash = newest.passwordHash;
    out.passwd = { users: [converted] };
  }
  return out;
}

/** Entries with a repeated key keep the last one; the result lists them from the last to the first. */
function lastFirst(items: Obj[], key: (item: Obj) => string): Obj[] {
  const seen = new Set<string>();
  const out: Obj[] = [];
  for (let i = items.length - 1; i >= 0; i--) {
    const k = key(items[i]!);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(items[i]!);
  }
  return out;
}

// ---------------------------------------------------------------- entry points

export const UNKNOWN_VERSION_MESSAGE = 'parsing Ignition config failed: unknown version. Supported spec versions: 2.2, 3.0, 3.1, 3.2';

export interface ParsedIgnition {
  /** The spec the config was written in. */
  spec: '3.2' | '3.1' | '3.0' | '2';
  /** The config in the 3.2 types (3.0 and 3.1 translated); for spec 2, the config as written. */
  config: Obj;
  /** File modes, path by path, in the order a validator walks them (for the MCO's special-bits check). */
  fileModes: Array<{ path: string; mode: number }>;
}

/**
 * IgnParseWrapper + translation: the config of one MachineConfig (any JSON value but null) in the 3.2 types, or the
 * MCO's error text. The JSON positions in the report are those of the compact JSON text of the value, which is what the
 * MCO reads from the API.
 */
export function parseIgnition(value: unknown): ParsedIgnition {
  let compact: string | undefined;
  const jsonText = (): string => (compact ??= JSON.stringify(value));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = Array.isArray(value) ? 'array' : typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'bool' : 'string';
    // the decoder stops right after an array's bracket; after a scalar it is at the end, where no line is found
    const where = Array.isArray(value) ? 'line 1 col 2' : 'line 0 col 0';
    throw invalidConfigError('3.2', `error at ${where}: json: cannot unmarshal ${kind} into Go value of type types.Config\n`);
  }
  const decoder = new Decoder();
  const config = decoder.decodeStruct('Config', value, '$', []);
  if (decoder.firstError) {
    const e = decoder.firstError;
    const text = jsonText();
    const start = valueOffsets(text).get(e.path)!;
    const begin = text[start - 1] === '{' || text[start - 1] === '[' ? start - 1 : start;
    const offset = byteOffset(text, valueEnd(text, begin));
    throw invalidConfigError(
      '3.2',
      `error at line 1 col ${offset + 1}: json: cannot unmarshal ${e.value} into Go struct field ${e.struct}.${e.fieldStack.join('.')} of type ${e.goType}\n`,
    );
  }
  const version = ((config.ignition ?? {}) as Obj).version;
  const spec = version === '3.2.0' ? '3.2' : version === '3.1.0' ? '3.1' : version === '3.0.0' ? '3.0' : undefined;
  if (spec) {
    const report = validateConfig(config);
    if (report.errors.length > 0) {
      const text = jsonText();
      const offsets = valueOffsets(text);
      const printed = report.all.map((e) => `${e.kind} at ${e.path}, line 1 col ${byteOffset(text, offsets.get(e.path) ?? -1) + 1}: ${e.message}\n`).join('');
      throw invalidConfigError(spec, printed);
    }
    (config.ignition as Obj).version = '3.2.0';
    return { spec, config, fileModes: modesOf(config) };
  }
  if (typeof version === 'string' && /^2\.[012]\.0$/.test(version)) {
    return { spec: '2', config: value as Obj, fileModes: modesOf(value as Obj) };
  }
  throw new IgnitionError(UNKNOWN_VERSION_MESSAGE);
}

function modesOf(config: Obj): Array<{ path: string; mode: number }> {
  const files = ((config.storage as Obj | undefined)?.files ?? []) as Obj[];
  return files.filter((file) => typeof file.mode === 'number').map((file) => ({ path: String(file.path ?? ''), mode: file.mode as number }));
}

/** The MCO's own check after parsing (bug 2038240): no setuid, setgid or sticky bits in file modes. */
export function checkFileModes(parsed: ParsedIgnition): void {
  for (const { path, mode } of parsed.fileModes) {
    if (mode > 0o777) throw new IgnitionError(`invalid mode 0${mode.toString(8)} for ${path}, cannot exceed 0777`);
  }
}

/** ParseAndConvertConfig: the config in the 3.2 types, spec 2 converted (which can fail on its users). */
export function toSpec32(parsed: ParsedIgnition): Obj {
  return parsed.spec === '2' ? convertSpec2(parsed.config) : parsed.config;
}

export function emptyIgnitionConfig(): Obj {
  return { ignition: { version: '3.2.0' } };
}
