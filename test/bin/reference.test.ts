import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TIMESTAMP_PREFIX } from '../../bin/run/timestamps.js';
import { lastLine, ocpE2e } from '../support/cli.js';
import { SPEC_COUNT } from './support/spec-files.js';

/** Every file under a folder, recursively. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Specs 15 to 19 (on-cluster image mode): 4.12 and 4.13 have no MachineOSConfig API, so they skip there, saying why. */
const NOT_ON_4_12 = 5;

describe('ocp-e2e run on the embedded reference cluster', function () {
  this.timeout(300_000);

  it('the whole suite passes on 4.12-ga, ending with the summary line, with JUnit and Allure results', async () => {
    const r = await ocpE2e(['run'], { timeoutMs: 280_000 });
    expect(r.exitCode, r.output).to.equal(0);
    expect(lastLine(r.output)).to.equal(`${SPEC_COUNT - NOT_ON_4_12} passed, 0 failed, ${NOT_ON_4_12} skipped`);
    const junit = readdirSync(join(r.reportsDir, 'junit'));
    expect(junit).to.have.length(SPEC_COUNT);
    const xml = readFileSync(join(r.reportsDir, 'junit', junit[0]!), 'utf8');
    expect(xml).to.match(/<testsuite [^>]*tests="1" failures="0"/);
    expect(readdirSync(join(r.reportsDir, 'allure-results')).filter((f) => f.endsWith('-result.json'))).to.have.length(SPEC_COUNT);
    // The default clock skips idle cluster time, and the suite reads cluster time from the server: the upgrade
    // phases report more cluster time than their wall time at the factor (at the factor alone they would be equal).
    expect(readFileSync(join(r.reportsDir, 'allure-results', 'environment.properties'), 'utf8')).to.match(/^reference\.clock = skip$/m);
    const phases = [...r.output.matchAll(/phase upgrade passed in (\d+)m(\d\d)s cluster time \((\d+\.\d)s wall\)/g)];
    expect(phases.length, 'upgrade phases reported').to.be.at.least(1);
    const skipped = phases.filter(([, m, sec, wall]) => Number(m) * 60 + Number(sec) > Number(wall) * 600 * 1.2);
    expect(skipped.length, `upgrade phases with more cluster time than 600 x wall: ${phases.map((p) => p[0]).join('; ')}`).to.be.at.least(1);
  });

  it('the whole suite passes on 4.12-to-4.13: the upgrade to 4.13 keeps every overridden pool on its custom image, the others move to rhel-coreos', async () => {
    const r = await ocpE2e(['run', '--profile', '4.12-to-4.13'], { timeoutMs: 280_000 });
    expect(r.exitCode, r.output.slice(-4000)).to.equal(0);
    expect(lastLine(r.output)).to.equal(`${SPEC_COUNT - NOT_ON_4_12} passed, 0 failed, ${NOT_ON_4_12} skipped`);
    expect(r.output).to.include('upgrade the cluster to the next release');
    expect(r.output).to.match(/waiting for the upgrade to 4\.13\.0/);
  });

  it('on the fixed clock (--clock fixed) spec 1 passes, and its durations are wall time x the factor', async () => {
    const r = await ocpE2e(['run', '--clock', 'fixed', '--grep', '54183'], { timeoutMs: 280_000 });
    expect(r.exitCode, r.output).to.equal(0);
    expect(lastLine(r.output)).to.equal('1 passed, 0 failed, 0 skipped');
    expect(readFileSync(join(r.reportsDir, 'allure-results', 'environment.properties'), 'utf8')).to.match(/^replay = .* --clock fixed$/m);
    const phases = [...r.output.matchAll(/phase (\w+) passed in (\d+)m(\d\d)s cluster time \((\d+\.\d)s wall\)/g)];
    expect(phases.map((p) => p[1])).to.deep.equal(['prepare', 'upgrade', 'check']);
    for (const [line, , m, sec, wall] of phases) {
      // within the Date header's second and the 0.1 s of the wall figure
      expect(Math.abs(Number(m) * 60 + Number(sec) - Number(wall) * 600), line).to.be.at.most(90);
    }
  });

  it('on 4.12-nightly-2022-09-08 the report flow fails in the upgrade phase quoting the operator, keeps its objects on request, and the pull secret never reaches reports/', async () => {
    // A pull secret with a planted marker: it is registered for masking and must not appear in any report file.
    const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-secret-'));
    const marker = 'PLANTED-SECRET-3f9c1e7a';
    const auth = Buffer.from(`robot:${marker}`).toString('base64');
    writeFileSync(join(dir, 'pull-secret.json'), JSON.stringify({ auths: { 'quay.io': { auth }, '127.0.0.1': { auth } } }));
    const r = await ocpE2e(
      ['run', '--profile', '4.12-nightly-2022-09-08', '--grep', '54183', '--pull-secret', join(dir, 'pull-secret.json'), '--keep-on-failure'],
      { timeoutMs: 280_000 },
    );
    expect(r.exitCode, r.output).to.equal(1);
    expect(lastLine(r.output)).to.equal('0 passed, 1 failed, 0 skipped');
    expect(r.output).to.match(/\[phase upgrade\]/);
    expect(r.output).to.include('osImageURL mismatch for master in rendered-master-');
    // --keep-on-failure: nothing is undone, and the output lists what was left and how to undo it.
    // (each line of the spec process starts with the wall-clock time: bin/run/timestamps.ts)
    const unstamped = r.output.split('\n').map((l) => l.replace(TIMESTAMP_PREFIX, '')).join('\n');
    expect(unstamped).to.match(
      /--keep-on-failure: left in place for inspection; undo by hand:\n\s+- delete MachineConfigs tc-54183-new-os-image-upgrade-worker, tc-54183-new-os-image-upgrade-master, then wait until pools worker, master settle without them\n\s+oc delete machineconfig tc-54183-new-os-image-upgrade-worker tc-54183-new-os-image-upgrade-master\n/,
    );

    const files = filesUnder(r.reportsDir);
    expect(files.some((f) => f.includes(`${join('artifacts', '')}`) && f.endsWith('clusteroperators.yaml')), 'failure artefacts were gathered').to.equal(true);
    const leaking = files.filter((f) => {
      const text = readFileSync(f).toString('latin1');
      return text.includes(marker) || text.includes(auth);
    });
    expect(leaking, 'files under reports/ that contain the pull secret').to.deep.equal([]);
    expect(r.output).to.not.include(marker);
  });
});
