/**
 * The checks of Ignition's validator (types' Validate methods, then the duplicates pass) that MachineConfigs reach,
 * with the library's messages.
 */
import type { ReportEntry } from './errors.js';
import type { Obj } from './schema.js';

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
export interface ValidateOptions {
  /**
   * Ignition v2.15 (release-4.13) warns of setuid, setgid and sticky bits in a mode of a spec before 3.4, which ignores
   * them; v2.13 (4.12) says nothing.
   */
  warnSpecialModeBits?: boolean;
}

export function validateConfig(config: Obj, options: ValidateOptions = {}): ReportEntries {
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
    // Go reads the mode as uint32: a negative one has every special bit
    if (options.warnSpecialModeBits && typeof mode === 'number' && (mode & 0o7000) !== 0) warn(path, 'setuid/setgid/sticky bits are not supported in spec versions older than 3.4.0');
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
  // spec 3.3+: both kernel argument lists share one key space (MergedKeys), the first list walked first
  const kargs = (config.kernelArguments ?? {}) as Obj;
  const kargsSeen = new Set<string>();
  dupes((kargs.shouldExist ?? []) as unknown[], String, '$.kernelArguments.shouldExist', kargsSeen);
  dupes((kargs.shouldNotExist ?? []) as unknown[], String, '$.kernelArguments.shouldNotExist', kargsSeen);
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
