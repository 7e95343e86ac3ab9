/**
 * release-4.13's IgnParseWrapper (pkg/controller/common/helpers.go at a57ca2912, Ignition v2.15): every 3.x config up
 * to 3.4 goes through Ignition's ParseCompatibleVersion, which first reads only `ignition.version` (util.versionStub),
 * then parses the config in its own spec version and translates it up to 3.4; the MCO drops the 3.4 kernel arguments
 * (it takes them into the MachineConfig itself) and translates down to 3.3 and 3.2. What does not fit 3.x goes to the
 * 2.x parser.
 *
 * Upward translation clears the setuid, setgid and sticky bits of modes written in specs before 3.4, which ignored
 * them; a 3.4 config that sets them cannot go down to 3.3 (ign-converter v34tov33).
 */
import { IgnitionError, invalidConfigError } from './errors.js';
import { decodeTyped, jsonKind, modesOf, notAnObjectError, typeErrorPosition, validateTyped, type ParsedIgnition } from './reader.js';
import type { Obj } from './schema.js';

const SUPPORTED = 'Supported spec versions: 2.2, 3.0, 3.1, 3.2, 3.3, 3.4';
export const UNKNOWN_VERSION_MESSAGE_4_13 = `parsing Ignition config failed: unknown version. ${SUPPORTED}`;
export const INVALID_VERSION_MESSAGE_4_13 = `parsing Ignition config failed: invalid version. ${SUPPORTED}`;
const SPECIAL_BITS_MESSAGE = 'translating Ignition config 3.4 to 3.3 failed with error: Invalid input config: special mode bits are not supported in spec v3.3';

const SPECS = { '3.0.0': '3.0', '3.1.0': '3.1', '3.2.0': '3.2', '3.3.0': '3.3', '3.4.0': '3.4' } as const;
const SPECIAL_BITS = 0o7000;

/** go-semver's NewVersion: MAJOR.MINOR.PATCH with an optional -prerelease and +metadata. */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

export function parseCompatible(value: unknown, text: () => string): ParsedIgnition {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw notAnObjectError(value, 'util.versionStub', '3');
  const version = stubVersion(value as Obj, text);
  if (!SEMVER.test(version)) throw new IgnitionError(INVALID_VERSION_MESSAGE_4_13);
  const spec = Object.hasOwn(SPECS, version) ? SPECS[version as keyof typeof SPECS] : undefined;
  if (spec === undefined) {
    // the 2.x parser reads 2.0 to 2.2; what it does not know either is the unknown version
    if (/^2\.[012]\.0$/.test(version)) return { spec: '2', config: value as Obj, fileModes: modesOf(value as Obj) };
    throw new IgnitionError(UNKNOWN_VERSION_MESSAGE_4_13);
  }
  const withKargs = spec === '3.3' || spec === '3.4';
  const config = decodeTyped(value as Obj, withKargs ? 'Config34' : 'Config', '3', text);
  validateTyped(config, '3', text, { warnSpecialModeBits: spec !== '3.4' });
  const kernelArguments = withKargs ? takeKernelArguments(config) : undefined;
  const storage = (config.storage ?? {}) as Obj;
  const nodes = [...((storage.directories ?? []) as Obj[]), ...((storage.files ?? []) as Obj[])];
  if (spec === '3.4') {
    if (nodes.some((node) => typeof node.mode === 'number' && (node.mode & SPECIAL_BITS) !== 0)) throw new IgnitionError(SPECIAL_BITS_MESSAGE);
  } else {
    for (const node of nodes) if (typeof node.mode === 'number') node.mode &= ~SPECIAL_BITS;
  }
  (config.ignition as Obj).version = '3.2.0';
  return { spec, config, fileModes: modesOf(config), ...(kernelArguments ? { kernelArguments } : {}) };
}

/** util.GetConfigVersion: `ignition.version` decoded into versionStub, with Go's type errors at their position. */
function stubVersion(config: Obj, text: () => string): string {
  const ignitionKey = goField(config, 'ignition');
  const ignition = ignitionKey === undefined ? null : config[ignitionKey];
  if (ignition === null || ignition === undefined) return '';
  if (jsonKind(ignition) !== 'object') {
    throw invalidConfigError('3', `error at line 1 col ${typeErrorPosition(text(), `$.${ignitionKey}`)}: json: cannot unmarshal ${jsonKind(ignition)} into Go struct field versionStub.Ignition of type struct { Version string }\n`);
  }
  const versionKey = goField(ignition as Obj, 'version');
  const version = versionKey === undefined ? null : (ignition as Obj)[versionKey];
  if (version === null || version === undefined) return '';
  if (typeof version !== 'string') {
    throw invalidConfigError('3', `error at line 1 col ${typeErrorPosition(text(), `$.${ignitionKey}.${versionKey}`)}: json: cannot unmarshal ${jsonKind(version)} into Go struct field .Ignition.Version of type string\n`);
  }
  return version;
}

/** The key Go's decoder fills a field from: the exact name, else the first key equal to it in any case. */
function goField(obj: Obj, name: string): string | undefined {
  if (Object.hasOwn(obj, name)) return name;
  return Object.keys(obj).find((k) => k.toLowerCase() === name);
}

function takeKernelArguments(config: Obj): { shouldExist: string[]; shouldNotExist: string[] } {
  const kargs = (config.kernelArguments ?? {}) as Obj;
  delete config.kernelArguments;
  return { shouldExist: ((kargs.shouldExist ?? []) as string[]).slice(), shouldNotExist: ((kargs.shouldNotExist ?? []) as string[]).slice() };
}
