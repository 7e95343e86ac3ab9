/**
 * The import rules of docs/architecture.md can fail: scripts/check-imports.sh (the check `npm test` runs before mocha)
 * is run on a fixture tree holding one violating import per rule beside the imports the rules allow, and must name
 * exactly the violations, each with its rule; a tree with import circles must name each circle; a tree of allowed
 * imports alone passes.
 */
import { expect } from 'chai';
import { execa } from 'execa';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHECK = fileURLToPath(new URL('../../scripts/check-imports.sh', import.meta.url));

/** Files every fixture tree has: one module per folder, importing only what its folder may. */
const ALLOWED: Record<string, string> = {
  'lib/kube/client.ts': `import { setTimeout } from 'node:timers/promises';\nexport const client = setTimeout;`,
  'lib/oci/engine.ts': `import { client } from '../kube/client.js';\nexport const engine = client;`,
  'mock/http.ts': `export const handle = 1;`,
  'mock/index.ts': `import { handle } from './http.js';\nexport const startApiServer = handle;`,
  'helpers/cluster.ts': `import { client } from '../lib/kube/client.js';\nexport const cluster = client;`,
  'helpers/flows.ts': `import type { cluster } from './cluster.js';\nexport type Flow = typeof cluster;`,
  'specs/01-upgrade.spec.ts': `import type { Flow } from '../helpers/flows.js';\nexport type F = Flow;`,
  'reference/index.ts': `import { startApiServer } from '../mock/index.js';\nimport { engine } from '../lib/oci/engine.js';\nexport const ref = [startApiServer, engine];`,
  'bin/run.ts': `import { ref } from '../reference/index.js';\nimport { handle } from '../mock/http.js';\nimport '../specs/01-upgrade.spec.js';\nexport const all = [ref, handle];`,
};

/** One violation per rule: the file, its import, and the rule that must name it. */
const VIOLATIONS: Array<{ file: string; source: string; to: string; rule: string }> = [
  { file: 'specs/02-bad.spec.ts', source: `import { ref } from '../reference/index.js';\nexport const x = ref;`, to: 'reference/index.ts', rule: 'specs-import-helpers-only' },
  { file: 'specs/03-bad.spec.ts', source: `import type { client } from '../lib/kube/client.js';\nexport type X = typeof client;`, to: 'lib/kube/client.ts', rule: 'specs-import-helpers-only' },
  { file: 'helpers/bad.ts', source: `import { ref } from '../reference/index.js';\nexport const x = ref;`, to: 'reference/index.ts', rule: 'helpers-import-helpers-and-lib' },
  { file: 'reference/bad-helpers.ts', source: `import { cluster } from '../helpers/cluster.js';\nexport const x = cluster;`, to: 'helpers/cluster.ts', rule: 'reference-imports-reference-lib-and-mock-index' },
  { file: 'reference/bad-mock.ts', source: `export const x = () => import('../mock/http.js');`, to: 'mock/http.ts', rule: 'reference-imports-reference-lib-and-mock-index' },
  { file: 'mock/bad.ts', source: `import { client } from '../lib/kube/client.js';\nexport const x = client;`, to: 'lib/kube/client.ts', rule: 'mock-imports-nothing-of-ours' },
  { file: 'lib/bad.ts', source: `import { cluster } from '../helpers/cluster.js';\nexport const x = cluster;`, to: 'helpers/cluster.ts', rule: 'lib-imports-lib-only' },
  { file: 'helpers/typo.ts', source: `import { nothing } from './no-such-module.js';\nexport const x = nothing;`, to: './no-such-module.js', rule: 'imports-resolve' },
];

function writeTree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'ocp-e2e-import-rules-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), `${text}\n`);
  }
  return root;
}

/**
 * Import circles, each within one folder (the folder rules allow every import in them): one only through type
 * imports, which count as much as any, and one through values.
 */
const CIRCLES: Record<string, string> = {
  'helpers/upgrade.ts': `import type { Recording } from './recording.js';\nexport interface Upgrade { recording: Recording }`,
  'helpers/recording.ts': `import type { Upgrade } from './upgrade.js';\nexport interface Recording { of: Upgrade }`,
  'mock/store.ts': `import { watchers } from './watch.js';\nexport const store = () => watchers;`,
  'mock/watch.ts': `import { store } from './store.js';\nexport const watchers = () => store;`,
};

/** The circles the check names (`error no-circular: a → b → a`), each as its sorted members. */
function circlesIn(output: string): string[][] {
  const circles = [...output.matchAll(/^\s*error no-circular: ((?:\S+ →\s*\n\s*)+\S+)$/gm)].map((m) => [...new Set(m[1]!.split('→').map((p) => p.trim()))].sort());
  return [...new Map(circles.map((c) => [c.join(' '), c])).values()].sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** `rule: from → to` for every error line of the check's output. */
function violationsIn(output: string): string[] {
  return [...output.matchAll(/^\s*error (\S+): (\S+) → (\S+)$/gm)].map((m) => `${m[1]}: ${m[2]} → ${m[3]}`).sort();
}

describe('import rules: scripts/check-imports.sh', function () {
  this.timeout(60_000);
  const trees: string[] = [];
  after(() => {
    for (const t of trees) rmSync(t, { recursive: true, force: true });
  });

  it('fails on each forbidden import, naming its rule, and on nothing else', async () => {
    const tree = writeTree({ ...ALLOWED, ...Object.fromEntries(VIOLATIONS.map((v) => [v.file, v.source])) });
    trees.push(tree);
    const r = await execa('bash', [CHECK, tree], { reject: false, all: true });
    expect(r.exitCode, r.all).to.equal(1);
    expect(violationsIn(r.all ?? ''), r.all).to.deep.equal(VIOLATIONS.map((v) => `${v.rule}: ${v.file} → ${v.to}`).sort());
  });

  it('fails on an import circle in any cruised folder, type-only imports included, naming the circle', async () => {
    const tree = writeTree({ ...ALLOWED, ...CIRCLES });
    trees.push(tree);
    const r = await execa('bash', [CHECK, tree], { reject: false, all: true });
    expect(r.exitCode, r.all).to.equal(1);
    expect(circlesIn(r.all ?? ''), r.all).to.deep.equal([
      ['helpers/recording.ts', 'helpers/upgrade.ts'],
      ['mock/store.ts', 'mock/watch.ts'],
    ]);
    expect(violationsIn(r.all ?? ''), 'no other rule is broken').to.deep.equal([]);
  });

  it('passes a tree whose imports all follow the rules', async () => {
    const tree = writeTree(ALLOWED);
    trees.push(tree);
    const r = await execa('bash', [CHECK, tree], { reject: false, all: true });
    expect(r.exitCode, r.all).to.equal(0);
    expect(r.all).to.match(/no dependency violations found/);
  });
});
