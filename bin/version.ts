/** `ocp-e2e --version`: the suite's version, with Node's, for bug reports. */
import { readFile } from 'node:fs/promises';

export async function suiteVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return `ocp-e2e ${pkg.version ?? 'unknown'} (node ${process.version})`;
}
