/**
 * Reading one config of a known 3.x spec version the way the Ignition library does: Go's JSON decoder fills the typed
 * structs (the first value of a wrong type is the error, with its position), then the validator's report. What both
 * of the MCO's readers (4.12's 3.2 parser, 4.13's compatible parser) share.
 */
import { Decoder } from './decode.js';
import { IgnitionError, invalidConfigError, type SpecLabel } from './errors.js';
import { byteOffset, valueEnd, valueOffsets } from './json-positions.js';
import type { Obj } from './schema.js';
import { validateConfig, type ValidateOptions } from './validate.js';

/** A MachineConfig's Ignition config as the render reads it. */
export interface ParsedIgnition {
  /** The spec the config was written in. */
  spec: '3.4' | '3.3' | '3.2' | '3.1' | '3.0' | '2';
  /** The config in the 3.2 types (3.x translated); for spec 2, the config as written. */
  config: Obj;
  /** File modes, path by path, in the order a validator walks them (for the MCO's special-bits check). */
  fileModes: Array<{ path: string; mode: number }>;
  /** A 3.3+ config's kernel arguments, which 4.13's render moves into the MachineConfig's. */
  kernelArguments?: { shouldExist: string[]; shouldNotExist: string[] };
}

/** The JSON kind of a value as Go's decoder names it in its errors. */
export function jsonKind(value: unknown): 'array' | 'object' | 'number' | 'bool' | 'string' | 'null' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'bool' : 'string';
}

/**
 * The error of decoding a whole config that is no JSON object into a Go struct of the given type. The decoder stops
 * right after an array's bracket; after a scalar it is at the end, where no line is found.
 */
export function notAnObjectError(value: unknown, goType: string, spec: SpecLabel): IgnitionError {
  const where = Array.isArray(value) ? 'line 1 col 2' : 'line 0 col 0';
  return invalidConfigError(spec, `error at ${where}: json: cannot unmarshal ${jsonKind(value)} into Go value of type ${goType}\n`);
}

/** The "error at line 1 col N" of a decoder type error at a JSON path: N is one past the end of the offending value. */
export function typeErrorPosition(text: string, path: string): number {
  const start = valueOffsets(text).get(path)!;
  const begin = text[start - 1] === '{' || text[start - 1] === '[' ? start - 1 : start;
  return byteOffset(text, valueEnd(text, begin)) + 1;
}

/** Decode a config object into the struct type `typeName` of schema.ts; a type error is thrown under the spec label. */
export function decodeTyped(value: Obj, typeName: string, spec: SpecLabel, text: () => string): Obj {
  const decoder = new Decoder();
  const config = decoder.decodeStruct(typeName, value, '$', []);
  const e = decoder.firstError;
  if (e) {
    throw invalidConfigError(spec, `error at line 1 col ${typeErrorPosition(text(), e.path)}: json: cannot unmarshal ${e.value} into Go struct field ${e.struct}.${e.fieldStack.join('.')} of type ${e.goType}\n`);
  }
  return config;
}

/** The validator's report on a decoded config; its errors (with the warnings among them) are thrown under the spec label. */
export function validateTyped(config: Obj, spec: SpecLabel, text: () => string, options: ValidateOptions = {}): void {
  const report = validateConfig(config, options);
  if (report.errors.length === 0) return;
  const offsets = valueOffsets(text());
  const printed = report.all.map((e) => `${e.kind} at ${e.path}, line 1 col ${byteOffset(text(), offsets.get(e.path) ?? -1) + 1}: ${e.message}\n`).join('');
  throw invalidConfigError(spec, printed);
}

/** File modes, path by path, in the order a validator walks them (for the MCO's special-bits check). */
export function modesOf(config: Obj): Array<{ path: string; mode: number }> {
  const files = ((config.storage as Obj | undefined)?.files ?? []) as Obj[];
  return files.filter((file) => typeof file.mode === 'number').map((file) => ({ path: String(file.path ?? ''), mode: file.mode as number }));
}
