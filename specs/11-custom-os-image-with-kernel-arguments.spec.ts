/**
 * Kernel arguments together with a custom OS image on the worker pool, then an upgrade (QE's layering catalogue has
 * the pairing without the upgrade). The arguments are staged with the custom image's deployment; after the upgrade
 * the workers still boot the custom image with them on the kernel command line.
 */
import { checkPoolRunsImage, checkUpgradeCompleted, checkUpgradeInvariants } from '../helpers/checks.js';
import { conformanceSession } from '../helpers/conformance.js';
import { findStartingPoint, overridePools, suiteLayeredOsImage } from '../helpers/flows.js';

const CASE = 'E2E-011';
const WORKER_MC = 'tc-e2e-011-custom-os-image-kargs-worker';
const KERNEL_ARGUMENTS = ['nosmt', 'ocp-e2e.layered=1'];

describe('[sig-mco] MCO layering: a custom osImage with kernel arguments', function () {
  const session = conformanceSession({ disruptive: true, upgrades: true, pools: { worker: { image: 'suite' } } });

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Longduration-High-${CASE}-[Serial][Disruptive] upgrade with a custom osImage and kernel arguments keeps the arguments`),
    session.test(
      { epic: 'MCO layering', feature: 'osImageURL override with kernel arguments', story: 'kernel arguments on a custom image survive an upgrade', caseId: CASE, tags: ['Serial', 'Disruptive'],
        changes: [`MachineConfig ${WORKER_MC} (osImageURL: the suite's layered image, built and pushed by the run's first spec that uses it; kernelArguments: [${KERNEL_ARGUMENTS.join(' ')}]) on pool worker`] },
      async (s) => {
        const { from, image } = await s.phase('prepare', `override the worker pool with a layered OS image and kernel arguments ${KERNEL_ARGUMENTS.join(' ')}`, async () => {
          const start = await findStartingPoint(s);
          const image = await suiteLayeredOsImage(s, CASE, start.osImage);
          await overridePools(s, [{ name: WORKER_MC, role: 'worker', osImageURL: image.pullspec, kernelArguments: KERNEL_ARGUMENTS }]);
          await checkPoolRunsImage(s, { pool: 'worker', image: image.pullspec, why: `custom image and kernel arguments of ${WORKER_MC}`, ...image.checks, kernelArguments: KERNEL_ARGUMENTS });
          return { from: start.version, image };
        });

        const upgraded = await s.upgradePhase(from);

        await s.phase('check', 'the workers kept the custom image and the kernel arguments', async () => {
          await checkUpgradeCompleted(s, upgraded.version);
          await checkUpgradeInvariants(upgraded);
          await checkPoolRunsImage(s, { pool: 'worker', image: image.pullspec, why: `custom image and kernel arguments of ${WORKER_MC}, through the upgrade`, ...image.checks, kernelArguments: KERNEL_ARGUMENTS, releaseVersion: upgraded.version });
        });
      },
    ),
  );
});
