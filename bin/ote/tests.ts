/**
 * Our tests as OTE test specs: one per test of specs/*.spec.ts, listed the way `ocp-e2e run` lists them
 * (mocha --dry-run, cached; bin/run/spec-listing.ts), each with the spec file and full title run-test needs back.
 */
import { basename, relative } from 'node:path';
import { ROOT, SPECS_DIR } from '../run/paths.js';
import { listTests } from '../run/spec-listing.js';
import { specFileNames } from '../run/specs.js';
import { environmentSelector } from './environment.js';
import { originName, titleFacts } from './names.js';
import type { ExtensionTestSpec, LabelSet } from './types.js';

export interface OteTest {
  spec: ExtensionTestSpec;
  /** Absolute path of the spec file. */
  file: string;
  /** mocha's full title: what `run --grep` matches. */
  fullTitle: string;
  /** Folder name for this test's reports: the spec file's name, and the test's place in it when the file has several. */
  slug: string;
}

export async function listOteTests(sourceId: string): Promise<OteTest[]> {
  const files = specFileNames().map((n) => `${SPECS_DIR}/${n}`);
  const listed = await listTests(files, 'all');
  const perFile = new Map<string, number>();
  for (const t of listed) perFile.set(t.file, (perFile.get(t.file) ?? 0) + 1);
  const seen = new Map<string, number>();
  return listed.map((t) => {
    const index = (seen.get(t.file) ?? 0) + 1;
    seen.set(t.file, index);
    const stem = basename(t.file).replace(/\.spec\.ts$/, '');
    return { spec: testSpec(t.fullTitle, relative(ROOT, t.file), sourceId), file: t.file, fullTitle: t.fullTitle, slug: perFile.get(t.file)! > 1 ? `${stem}-${index}` : stem };
  });
}

/** The fields in the order Go's encoder writes ExtensionTestSpec's, so our lines read like any extension's. */
function testSpec(fullTitle: string, codeLocation: string, sourceId: string): ExtensionTestSpec {
  const facts = titleFacts(fullTitle);
  const labels: LabelSet = Object.fromEntries(facts.labels.map((l) => [l, {}]));
  return {
    name: originName(fullTitle),
    labels,
    ...(facts.caseId ? { tags: { case: facts.caseId } } : {}),
    resources: { isolation: {} },
    source: sourceId,
    codeLocations: [codeLocation],
    lifecycle: facts.informing ? 'informing' : 'blocking',
    environmentSelector: environmentSelector(),
  };
}
