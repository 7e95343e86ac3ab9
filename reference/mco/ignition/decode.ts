/**
 * Go's encoding/json filling the 3.2 types from a config: known fields only (exact name first, then case-insensitive),
 * null leaves the zero value, and the first value of a wrong JSON type is remembered as Go reports it.
 */
import { flatFields, TYPES, type FieldKind, type Obj } from './schema.js';

interface TypeErrorInfo {
  value: string;
  struct: string;
  fieldStack: string[];
  goType: string;
  /** JSON path of the offending value, to find its end offset. */
  path: string;
}

export class Decoder {
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
      const decoded = this.decodeValue(field.kind, value, `${path}.${key}`, [...stack, field.json], TYPES[type]?.goName ?? type);
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
