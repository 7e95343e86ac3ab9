// Prints the project's test files in the order `npm test` hands them to mocha's parallel workers: slowest first, by
// the times of the last measured run (test/file-times.json, written by the summary reporter as
// reports/test-file-times.json), so that no long file starts last and holds the run up alone at its end. A file the
// times do not know yet (a new one) goes first too: it may be long, and a short one first costs little.
//
//   node scripts/test-order.mjs   (from the checkout's root)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

let times = {};
try {
  times = JSON.parse(readFileSync('test/file-times.json', 'utf8'));
} catch {
  // no times: the files' own (name) order
}
const files = testFiles('test').sort();
const known = (f) => typeof times[f] === 'number';
const ordered = [...files.filter((f) => !known(f)), ...files.filter(known).sort((a, b) => times[b] - times[a])];
process.stdout.write(`${ordered.join('\n')}\n`);
