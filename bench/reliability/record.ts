/** Appends a block of figures to bench/RESULTS.md, at the end of its "## reliability" section. */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from '../../test/support/cli.js';

export async function recordReliability(block: string[]): Promise<string> {
  const file = join(ROOT, 'bench', 'RESULTS.md');
  const text = await readFile(file, 'utf8');
  const at = text.indexOf('\n## reliability');
  if (at < 0) throw new Error('bench/RESULTS.md has no "## reliability" section');
  const end = text.indexOf('\n## ', at + 1);
  const insertAt = end < 0 ? text.length : end;
  await writeFile(file, text.slice(0, insertAt).trimEnd() + '\n' + block.join('\n') + text.slice(insertAt));
  return file;
}
