/** The suite's version (package.json): checkpoints and run manifests carry it, so halves of two suites never meet. */
import { readFile } from 'node:fs/promises';

export async function suiteVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
