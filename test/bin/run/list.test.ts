/**
 * `ocp-e2e run --list`: what a run would run, read from the specs' own declarations, with no cluster, engine,
 * registry or `oc`; and the declarations kept true to what each spec's body does.
 */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { listSuite, type SuiteListing } from '../../../bin/run/list.js';
import { validateOptions, type RunOptions } from '../../../bin/run/options.js';
import { ROOT } from '../../../bin/run/paths.js';
import { specFileNames } from '../../../bin/run/specs.js';
import { lastLine, ocpE2e } from '../../support/cli.js';

/** A PATH with node but without `oc` or kubectl: the listing must not need them. */
function pathWithoutOc(): string {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((d) => d && !existsSync(join(d, 'oc')) && !existsSync(join(d, 'kubectl')));
  return [dirname(process.execPath), ...dirs].join(delimiter);
}

/** Nothing to reach: an engine on a closed loopback port, a kubeconfig that does not exist, no `oc`. */
const NOWHERE = { DOCKER_HOST: 'tcp://127.0.0.1:9', KUBECONFIG: '/nonexistent/kubeconfig', PATH: pathWithoutOc() };

const options = (o: Partial<RunOptions> = {}): RunOptions => ({ target: 'reference', phase: 'all', ...o });

/** The string constants of a spec file, `${OTHER}` in template literals resolved: what its MachineConfigs are named. */
function stringConstants(source: string): Map<string, string> {
  const consts = new Map<string, string>();
  for (const m of source.matchAll(/^const (\w+) = ['`]([^'`]*)['`];/gm)) {
    consts.set(m[1]!, m[2]!.replace(/\$\{(\w+)\}/g, (_, name: string) => consts.get(name) ?? `\${${name}}`));
  }
  return consts;
}

describe('ocp-e2e run --list', function () {
  this.timeout(120_000);

  describe('from the command line, with nothing to reach', () => {
    let listing: SuiteListing;
    let reportsDir = '';

    before(async () => {
      const r = await ocpE2e(['run', '--list', '--output', 'json', '--target', 'cluster', '--kubeconfig', '/nonexistent/kubeconfig'], { env: NOWHERE });
      expect(r.exitCode, r.output).to.equal(0);
      listing = JSON.parse(r.output) as SuiteListing;
      reportsDir = r.reportsDir;
    });

    it('lists every spec file with its case id, in name order, as JSON only', () => {
      expect(listing.specs.map((s) => s.file)).to.deep.equal(specFileNames().map((n) => `specs/${n}`));
      expect(listing.specs.map((s) => s.caseId)).to.deep.equal(['54183', 'E2E-002', 'E2E-003', 'E2E-004', 'E2E-005', 'E2E-006', 'E2E-007', '54052', '54909', '54915', 'E2E-011', '54085', 'E2E-013', 'E2E-014', 'E2E-015', 'E2E-016', 'E2E-017', 'E2E-018', 'E2E-019']);
      expect(listing.specs.every((s) => s.tags.includes('Serial') && s.tags.includes('Disruptive'))).to.equal(true);
    });

    it('says which specs upgrade and which phases each has', () => {
      const upgrading = listing.specs.filter((s) => s.upgrades).map((s) => s.caseId);
      expect(upgrading).to.deep.equal(['54183', 'E2E-002', 'E2E-003', 'E2E-005', 'E2E-007', '54909', '54915', 'E2E-011', '54085', 'E2E-013', 'E2E-014', 'E2E-015', 'E2E-016', 'E2E-019']);
      const spec1 = listing.specs[0]!;
      expect(spec1.phases).to.deep.equal(['prepare', 'upgrade', 'check']);
      expect(spec1.runPhases).to.deep.equal(['all', 'pre', 'upgrade', 'post']);
      const spec4 = listing.specs[3]!;
      expect(spec4.phases).to.deep.equal(['prepare', 'check']);
      expect(spec4.runPhases).to.deep.equal(['all']);
    });

    it('names the MachineConfigs each spec applies and their pools', () => {
      expect(listing.specs[0]!.changes).to.have.length(2);
      expect(listing.specs[0]!.changes[0]).to.match(/^MachineConfig tc-54183-new-os-image-upgrade-worker \(osImageURL: .*\) on pool worker$/);
      expect(listing.specs[0]!.changes[1]).to.match(/^MachineConfig tc-54183-new-os-image-upgrade-master \(osImageURL: .*\) on pool master$/);
      expect(listing.specs[2]!.changes, 'spec 3 only upgrades').to.deep.equal([]);
    });

    it('says why a real cluster without --allow-disruptive would skip every spec, and writes no reports', () => {
      for (const s of listing.specs) expect(s.skip, s.file).to.match(/pass --allow-disruptive/);
      expect(existsSync(reportsDir), 'a listing writes no reports folder').to.equal(false);
    });
  });

  it('prints blocks for people by default, ending with its counts', async () => {
    const r = await ocpE2e(['run', '--list', '--grep', '54183'], { env: NOWHERE });
    expect(r.exitCode, r.output).to.equal(0);
    expect(r.output).to.match(/^specs\/01-upgrade-custom-os-image-both-pools\.spec\.ts\n {2}\[sig-mco\] .*54183/);
    expect(r.output).to.match(/\n {4}case {6}54183\n/);
    expect(r.output).to.match(/\n {4}upgrades {2}yes/);
    expect(r.output).to.match(/\n {4}changes {3}MachineConfig tc-54183-new-os-image-upgrade-worker .* on pool worker\n {14}MachineConfig tc-54183-new-os-image-upgrade-master .* on pool master\n/);
    expect(lastLine(r.output)).to.match(/^1 test\(s\), 1 would run, 0 would be skipped \(--target reference --phase all --grep 54183\)/);
  });

  it('selects as a run does: --grep, --shard and --phase', async () => {
    expect((await listSuite(options({ grep: 'E2E-00[46]' }))).specs.map((s) => s.caseId)).to.deep.equal(['E2E-004', 'E2E-006']);
    expect((await listSuite(options({ shard: { index: 2, count: 3 } }))).specs.map((s) => s.caseId)).to.deep.equal(['E2E-002', 'E2E-005', '54052', 'E2E-011', 'E2E-014', 'E2E-017']);
    const pre = await listSuite(options({ target: 'cluster', allowDisruptive: true, phase: 'pre' }));
    expect(pre.specs.filter((s) => !s.skip).map((s) => s.caseId)).to.deep.equal(['54183', 'E2E-002', 'E2E-003', 'E2E-005', 'E2E-007', '54909', '54915', 'E2E-011', '54085', 'E2E-013', 'E2E-014', 'E2E-015', 'E2E-016', 'E2E-019']);
    expect(pre.specs[3]!.skip).to.match(/does not upgrade, so it has no pre and post halves/);
    expect(pre.specs[0]!.title).to.include('-PreChkUpgrade-');
    expect(pre.specs[0]!.tags).to.include('PreChkUpgrade');
  });

  it('refuses --output without --list and --list with --rerun-failed (exit 2 in the command)', () => {
    expect(() => validateOptions(options({ output: 'json' }))).to.throw(/--output applies to --list only/);
    expect(() => validateOptions(options({ list: true, rerunFailed: true }))).to.throw(/cannot be combined with --rerun-failed/);
  });

  it('every spec declares what its body does: upgrades exactly when it calls upgradePhase, and every MachineConfig it applies', async () => {
    const listing = await listSuite(options());
    for (const spec of listing.specs) {
      const source = readFileSync(join(ROOT, spec.file), 'utf8');
      expect(spec.upgrades, `${spec.file}: upgrades`).to.equal(source.includes('.upgradePhase('));
      const consts = stringConstants(source);
      // a role in quotes is a pool by name; a variable is the spec's own custom pool, whose name the plan decides
      const applied = [...source.matchAll(/\{ name: (\w+), role: (?:'([\w-]+)'|(\w+))/g)].map((m) => ({ name: consts.get(m[1]!) ?? m[1]!, role: m[2] }));
      for (const { name, role } of applied) {
        const declared = spec.changes.some((c) => c.startsWith(`MachineConfig ${name} `) && (role === undefined ? / on (?:that|its own custom) pool\b/.test(c) : c.includes(`on pool ${role}`)));
        expect(declared, `${spec.file} applies ${name} on ${role === undefined ? "the spec's own custom pool" : `pool ${role}`} but declares only: ${spec.changes.join('; ')}`).to.equal(true);
      }
      expect(spec.changes.filter((c) => c.startsWith('MachineConfig ')), `${spec.file}: declared MachineConfigs it does not apply`).to.have.length(applied.length);
    }
    expect(listing.specs).to.have.length(specFileNames().length);
  });
});
