/**
 * The Ignition side of rendering, as the MCO does it with the Ignition library it vendors (coreos/ignition v2.13,
 * spec 3.2 types): read a MachineConfig's `spec.config` the way Go's JSON decoder fills the typed structs, accept
 * spec 3.2, 3.1, 3.0 and 2.x, validate, merge configs field by field (the library's keyed merge), and print the merged
 * config the way it lands in the rendered MachineConfig.
 *
 * The 3.2 schema (field names, Go types, omitempty) is in schema.ts, a fact of the format. The validation
 * covers the rules a hand-written MachineConfig trips over (paths, unit and drop-in names, duplicates, file modes,
 * overwrite without a source, source URLs, compression); error texts are the library's, with the JSON position it
 * reports. The 2.x reader covers files, units and users, which is what 2.x MachineConfigs carry in practice.
 */
import { Decoder } from './decode.js';
import { IgnitionError, invalidConfigError } from './errors.js';
import { byteOffset, valueEnd, valueOffsets } from './json-positions.js';
import type { Obj } from './schema.js';
import { convertSpec2 } from './spec2.js';
import { validateConfig } from './validate.js';

export { IgnitionError } from './errors.js';
export { marshalIgnition } from './marshal.js';
export { mergeIgnitionConfigs } from './merge.js';

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
