/** The merged config printed the way it lands in the rendered MachineConfig. */
import { flatFields, type Obj } from './schema.js';

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
