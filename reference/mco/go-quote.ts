// Go's %q, for the texts upstream formats with it (the operator's errors, the pool's NodeDegraded message).
/** Go's %q of a string (strconv.Quote): printable characters as they are, the rest escaped Go's way. */
export function goQuote(text: string): string {
  let out = '"';
  for (const c of text) {
    const cp = c.codePointAt(0)!;
    if (c === '"' || c === '\\') out += `\\${c}`;
    else if (c === ' ' || (cp > 0x20 && GO_PRINTABLE.test(c))) out += c;
    else if (GO_ESCAPES[c]) out += GO_ESCAPES[c];
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/** unicode.IsPrint: letters, marks, numbers, punctuation and symbols (plus the ASCII space, handled above). */
const GO_PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
const GO_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };
