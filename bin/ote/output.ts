/**
 * What the OTE commands print, and where: JSON on stdout (openshift-tests parses it), everything else on stderr.
 * Encoded as Go's encoding/json does (OTE's flags.OutputFlags.Marshal): `json` indented by two spaces, `jsonl` one
 * compact object per line, `names` one name per line; `<`, `>`, `&`, U+2028 and U+2029 escaped as Go escapes them.
 */

export const OUTPUT_FORMATS = ['json', 'jsonl', 'names'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** JSON as Go's json.Marshal / json.MarshalIndent writes it (HTML-safe escaping included). */
export function goJson(value: unknown, indent?: string): string {
  return JSON.stringify(value, null, indent).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A list in one of the output formats, as OTE prints it (without the final newline its Fprintf adds). */
export function formatList(items: ReadonlyArray<{ name: string }>, format: OutputFormat): string {
  switch (format) {
    case 'json':
      return goJson(items, '  ');
    case 'jsonl':
      // Each item ends with a newline; OTE's Fprintf("%s\n") then adds one more, which parsers skip as an empty line.
      return items.map((item) => `${goJson(item)}\n`).join('');
    case 'names':
      return items.map((item) => item.name).join('\n');
  }
}

/** Writes to stdout and resolves once the text is handed to the OS, so an exit right after loses nothing. */
export function writeStdout(text: string): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve())));
}

/** A human message: stderr only, so stdout stays parseable. */
export function say(message: string): void {
  process.stderr.write(`${message}\n`);
}
