/**
 * The codebase's shape in numbers, for before/after comparisons of a reshape: lines per top-level folder, and every
 * function, method or arrow function longer than 60 lines. Run: `npx tsx bench/code/shape.ts [DIR]`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = process.argv[2] ?? process.cwd();
const LONG = 60;
const skip = new Set(['node_modules', '.git', '.cache', 'reports', 'reports-podman']);

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (skip.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.(c|m)?ts$/.test(name) && !name.endsWith('.d.ts')) yield path;
  }
}

const linesPerFolder = new Map<string, number>();
const long: { where: string; lines: number }[] = [];
for (const file of sources(root)) {
  const rel = relative(root, file);
  const text = readFileSync(file, 'utf8');
  const folder = rel.includes('/') ? rel.split('/')[0]! : '.';
  linesPerFolder.set(folder, (linesPerFolder.get(folder) ?? 0) + text.split('\n').length);
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > LONG) {
        const name = (node as ts.FunctionLikeDeclaration).name?.getText() ?? '(anonymous)';
        long.push({ where: `${rel}:${start + 1} ${name}`, lines: end - start + 1 });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

console.log('lines per folder (TypeScript):');
for (const [folder, n] of [...linesPerFolder].sort((a, b) => b[1] - a[1])) console.log(`  ${folder.padEnd(10)} ${n}`);
console.log(`functions over ${LONG} lines: ${long.length}`);
for (const f of long.sort((a, b) => b.lines - a.lines)) console.log(`  ${String(f.lines).padStart(4)}  ${f.where}`);
