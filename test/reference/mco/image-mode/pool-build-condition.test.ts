/**
 * The build controller's ImageBuildDegraded per release (reference/mco/image-mode/pool-build-condition.ts): 4.20 lets
 * the failed build set it only where no other build is active or succeeded (so a rebuild failing after a success
 * never shows, OCPBUGS-61114); 4.21+ follows the build the MachineOSConfig names.
 */
import { expect } from 'chai';
import { buildDegradedWrite, currentBuildOf } from '../../../../reference/mco/image-mode/pool-build-condition.js';
import { conditionsFor, type BuildState } from '../../../../reference/mco/image-mode/build-state.js';
import type { MachineOSBuild, MachineOSConfig } from '../../../../reference/mco/image-mode/types.js';

const T0 = '2026-01-01T00:00:00Z';
const build = (name: string, state: BuildState, created: string, digest?: string): MachineOSBuild => ({
  metadata: { name, creationTimestamp: new Date(created) },
  spec: { machineConfig: { name: `rendered-${name}` }, machineOSConfig: { name: 'p' }, renderedImagePushSpec: `r/x:${name}` },
  status: { conditions: conditionsFor(state, [], T0), ...(digest ? { digestedImagePushSpec: digest } : {}) },
});
const config = (current: string | undefined, image: string): MachineOSConfig => ({
  metadata: { name: 'p', annotations: current ? { 'machineconfiguration.openshift.io/current-machine-os-build': current } : {} },
  spec: { machineConfigPool: { name: 'p' }, renderedImagePushSecret: { name: 's' }, renderedImagePushSpec: 'r/x:t' },
  status: image ? { currentImagePullSpec: image } : {},
});

describe('reference image mode: ImageBuildDegraded from the build controller', () => {
  const first = build('p-1', 'Succeeded', '2026-01-01T00:00:00Z', 'r/x@sha256:1');
  const rebuild = build('p-2', 'Failed', '2026-01-01T01:00:00Z');

  it('4.21+: a rebuild that fails after a success sets it True, with upstream\'s message', () => {
    const write = buildDegradedWrite('active-build', 'failed', 'p', config('p-2', 'r/x@sha256:1'), rebuild, [first, rebuild]);
    expect(write?.condition).to.deep.equal({ type: 'ImageBuildDegraded', status: 'True', reason: 'BuildFailed', message: 'Failed to build OS image for pool p (MachineOSBuild: p-2): Failed: Build Failed' });
  });

  it('4.20: the same failure leaves it alone (another build succeeded: OCPBUGS-61114)', () => {
    expect(buildDegradedWrite('failed-build', 'failed', 'p', config('p-2', 'r/x@sha256:1'), rebuild, [first, rebuild])).to.equal(undefined);
  });

  it('4.20: a first build that fails sets it True', () => {
    const only = build('p-1', 'Failed', T0);
    expect(buildDegradedWrite('failed-build', 'failed', 'p', config('p-1', ''), only, [only])?.condition.status).to.equal('True');
  });

  it('a start clears it (once), a success clears it', () => {
    const running = build('p-3', 'Prepared', '2026-01-01T02:00:00Z');
    for (const follows of ['failed-build', 'active-build'] as const) {
      expect(buildDegradedWrite(follows, 'started', 'p', config('p-3', 'r/x@sha256:1'), running, [first, running])).to.deep.equal({ condition: { type: 'ImageBuildDegraded', status: 'False', reason: 'Building', message: 'Build started for pool p' }, onlyIfNotFalse: true });
      expect(buildDegradedWrite(follows, 'succeeded', 'p', config('p-1', 'r/x@sha256:1'), first, [first])?.condition).to.deep.include({ status: 'False', reason: 'BuildSuccess', message: 'Build succeeded for pool p' });
    }
  });

  it('the current build: the annotated one, else one building or prepared, else the newest', () => {
    const running = build('p-3', 'Building', '2026-01-01T02:00:00Z');
    expect(currentBuildOf(config('p-1', ''), [first, rebuild, running])?.metadata.name).to.equal('p-1');
    expect(currentBuildOf(config(undefined, ''), [first, rebuild, running])?.metadata.name).to.equal('p-3');
    expect(currentBuildOf(config(undefined, ''), [first, rebuild])?.metadata.name).to.equal('p-2');
  });
});
