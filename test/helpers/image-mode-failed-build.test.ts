/**
 * The pieces of spec 16 that need no cluster: the step pinned to a release (the os-release line that tells two bases
 * apart), the suite's own knowledge of how a release shows a rebuild that failed after a success, and the pool verdict
 * built on it.
 */
import { expect } from 'chai';
import { poolShowsFailedBuild } from '../../helpers/image-mode/failed-pool.js';
import { releaseLine, releasePin, withReleasePin } from '../../helpers/image-mode/release-pin.js';
import { failedRebuildShows } from '../../helpers/releases/image-build-failure.js';
import { releaseRules } from '../../helpers/releases/select.js';
import type { MachineConfigPool } from '../../helpers/types.js';

const pool = (conditions: Array<[string, string, string?, string?]>): MachineConfigPool =>
  ({ metadata: { name: 'p' }, spec: { configuration: { name: 'rendered-p-2' } }, status: { machineCount: 1, updatedMachineCount: 0, conditions: conditions.map(([type, status, reason, message]) => ({ type, status, reason, message })) } }) as MachineConfigPool;

describe('image mode: a build that fails during an upgrade (no cluster)', () => {
  it('pins a step to the first os-release line the next base lacks, right after FROM configs AS final', () => {
    const line = releaseLine('NAME="RHCOS"\nVERSION="4.20.0"\n', 'NAME="RHCOS"\nVERSION="4.21.0"\n', '4.20.0', '4.21.0');
    expect(line).to.equal('VERSION="4.20.0"');
    const pin = releasePin(line, '4.20.0');
    expect(pin.run).to.equal(`RUN grep -qxF 'VERSION="4.20.0"' /usr/lib/os-release || { echo 'ocp-e2e: this step was written for OpenShift 4.20.0: /usr/lib/os-release has no line VERSION="4.20.0"' >&2; exit 1; }`);
    expect(withReleasePin('FROM configs AS final\nRUN true\n', pin).split('\n')).to.deep.equal(['FROM configs AS final', pin.run, 'RUN true', '']);
    expect(() => releaseLine('A=1\n', 'A=1\n', '4.20.0', '4.21.0')).to.throw('no step can tell them apart');
  });

  it('knows which releases show the failed rebuild as ImageBuildDegraded (4.21+, OCPBUGS-61114 fixed)', () => {
    expect(['4.18.0', '4.19.0', '4.20.0', '4.21.0', '4.22.0'].map((v) => failedRebuildShows(releaseRules(v).rules))).to.deep.equal(['updating-only', 'updating-only', 'updating-only', 'image-build-degraded', 'image-build-degraded']);
  });

  it('judges the pool as the release shows it, saying what it saw', () => {
    const message = 'Failed to build OS image for pool p (MachineOSBuild: p-2): Failed: Build Failed';
    expect(poolShowsFailedBuild(pool([['Updated', 'False'], ['ImageBuildDegraded', 'True', 'BuildFailed', message]]), 'p', 'p-2', 'image-build-degraded').ok).to.equal(true);
    const hidden = poolShowsFailedBuild(pool([['Updated', 'False'], ['ImageBuildDegraded', 'False', 'Building', 'New build started']]), 'p', 'p-2', 'image-build-degraded');
    expect(hidden.ok).to.equal(false);
    expect(hidden.why).to.include('has ImageBuildDegraded=False (Building) "New build started", expected ImageBuildDegraded=True (BuildFailed)');
    expect(poolShowsFailedBuild(pool([['Updated', 'False'], ['Updating', 'True'], ['Degraded', 'False']]), 'p', 'p-2', 'updating-only').ok).to.equal(true);
    const degraded = poolShowsFailedBuild(pool([['Updated', 'False'], ['Updating', 'True'], ['Degraded', 'True', '', 'Custom OS image build failed']]), 'p', 'p-2', 'updating-only');
    expect(degraded.why).to.include('is Degraded');
  });
});
