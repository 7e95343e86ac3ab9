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
import { parseCompatible } from './compatible.js';
import { IgnitionError } from './errors.js';
import { decodeTyped, modesOf, notAnObjectError, validateTyped, type ParsedIgnition } from './reader.js';
import type { Obj } from './schema.js';
import { convertSpec2 } from './spec2.js';

export { IgnitionError } from './errors.js';
export type { ParsedIgnition } from './reader.js';
export { marshalIgnition } from './marshal.js';
export { mergeIgnitionConfigs } from './merge.js';

export const UNKNOWN_VERSION_MESSAGE = 'parsing Ignition config failed: unknown version. Supported spec versions: 2.2, 3.0, 3.1, 3.2';

/** The newest spec an MCO's parser reads: 4.12's reads 3.2 (and older); 4.13's reads up to 3.4. */
export type IgnitionReader = '3.2' | '3.4';


/**
 * IgnParseWrapper + translation: the config of one MachineConfig (any JSON value but null) in the 3.2 types, or the
 * MCO's error text. The JSON positions in the report are those of the compact JSON text of the value, which is what the
 * MCO reads from the API.
 */
export function parseIgnition(value: unknown, reader: IgnitionReader = '3.2'): ParsedIgnition {
  let compact: string | undefined;
  const jsonText = (): string => (compact ??= JSON.stringify(value));
  if (reader === '3.4') return parseCompatible(value, jsonText);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw notAnObjectError(value, 'types.Config', '3.2');
  // 3.2's parser decodes the whole config before it looks at the version: a type error anywhere is the answer
  const config = decodeTyped(value as Obj, 'Config', '3.2', jsonText);
  const version = ((config.ignition ?? {}) as Obj).version;
  const spec = version === '3.2.0' ? '3.2' : version === '3.1.0' ? '3.1' : version === '3.0.0' ? '3.0' : undefined;
  if (spec) {
    validateTyped(config, spec, jsonText);
    (config.ignition as Obj).version = '3.2.0';
    return { spec, config, fileModes: modesOf(config) };
  }
  if (typeof version === 'string' && /^2\.[012]\.0$/.test(version)) {
    return { spec: '2', config: value as Obj, fileModes: modesOf(value as Obj) };
  }
  throw new IgnitionError(UNKNOWN_VERSION_MESSAGE);
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
