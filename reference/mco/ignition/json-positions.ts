/**
 * Positions in the compact JSON text of a config, as the Ignition report and Go's decoder give them: where each value
 * starts (objects and arrays: just after the bracket), where a value ends, in UTF-8 bytes.
 */

/** Where each value of the compact JSON text starts, by Ignition's path notation (`$.storage.files.0.path`). */
export function valueOffsets(text: string): Map<string, number> {
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
export function byteOffset(text: string, index: number): number {
  return index < 0 ? index : Buffer.byteLength(text.slice(0, index), 'utf8');
}

function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

/** The end of the value starting at `start` (Go's decoder reports type errors at the byte after the value). */
export function valueEnd(text: string, start: number): number {
  if (text[start] === '"') return stringEnd(text, start);
  if (text[start] === '{' || text[start] === '[') {
    return start + 1; // Go reports objects and arrays of the wrong type right after the opening bracket
  }
  let i = start;
  while (i < text.length && !',}]'.includes(text[i]!)) i++;
  return i;
}
