/**
 * QE 54915: `kernelType: realtime` together with a custom OS image on the worker pool, then an upgrade. The daemon
 * swaps the kernel packages for the realtime ones on top of the custom image; after the upgrade the workers still
 * boot the custom image on the realtime kernel.
 */
import { checkPoolRunsImage, checkUpgradeCompleted, checkUpgradeInvariants } from '../helpers/checks.js';
import { conformanceSession } from '../helpers/conformance.js';
import { findStartingPoint, overridePools, suiteLayeredOsImage } from '../helpers/flows.js';

const CASE = '54915';
const WORKER_MC = `tc-${CASE}-custom-os-image-realtime-worker`;

describe('[sig-mco] MCO layering: a custom osImage with the realtime kernel', function () {
  // kernel-rt is built for x86_64 alone (openshift/os extensions manifests): an arm64 node has no realtime kernel to take
  const session = conformanceSession({ disruptive: true, upgrades: true, pools: { worker: { image: 'suite', settings: ['kernelType:realtime'] } }, architectures: { only: ['amd64'], why: 'kernel-rt (kernelType: realtime) exists for x86_64 only; run this spec on a pool of amd64 nodes' } });

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Longduration-High-${CASE}-[Serial][Disruptive] upgrade with a custom osImage and kernelType realtime keeps the realtime kernel`),
    session.test(
      { epic: 'MCO layering', feature: 'osImageURL override with the realtime kernel', story: 'the realtime kernel on a custom image survives an upgrade', caseId: CASE, tags: ['Serial', 'Disruptive'],
        changes: [`MachineConfig ${WORKER_MC} (osImageURL: the suite's layered image, built and pushed by the run's first spec that uses it; kernelType: realtime) on pool worker`] },
      async (s) => {
        const { from, image } = await s.phase('prepare', 'override the worker pool with a layered OS image and the realtime kernel', async () => {
          const start = await findStartingPoint(s);
          const image = await suiteLayeredOsImage(s, CASE, start.osImage);
          await overridePools(s, [{ name: WORKER_MC, role: 'worker', osImageURL: image.pullspec, kernelType: 'realtime' }]);
          await checkPoolRunsImage(s, { pool: 'worker', image: image.pullspec, why: `custom image and kernelType realtime of ${WORKER_MC}`, ...image.checks, kernelType: 'realtime' });
          return { from: start.version, image };
        });

        const upgraded = await s.upgradePhase(from);

        await s.phase('check', 'the workers kept the custom image and the realtime kernel', async () => {
          await checkUpgradeCompleted(s, upgraded.version);
          await checkUpgradeInvariants(upgraded);
          await checkPoolRunsImage(s, { pool: 'worker', image: image.pullspec, why: `custom image and kernelType realtime of ${WORKER_MC}, through the upgrade`, ...image.checks, kernelType: 'realtime', releaseVersion: upgraded.version });
        });
      },
    ),
  );
});
