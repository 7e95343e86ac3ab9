/**
 * Only the worker pool is overridden: after the upgrade the workers still run the custom image, and the masters, which
 * nobody overrode, move to the new release's OS image.
 */
import { checkPoolRunsImage, checkUpgradeCompleted, checkUpgradeInvariants } from '../helpers/checks.js';
import { conformanceSession } from '../helpers/conformance.js';
import { findDefaultOsImage } from '../helpers/default-os-image.js';
import { findStartingPoint, overridePools, suiteLayeredOsImage } from '../helpers/flows.js';

const CASE = 'E2E-002';
const WORKER_MC = 'tc-e2e-002-worker-only-os-image-worker';

describe('[sig-mco] MCO layering: upgrade with a custom osImage in the worker pool only', function () {
  // a shared upgrade may give either role a custom pool: what is judged is an overridden pool next to one left alone
  const session = conformanceSession({ disruptive: true, upgrades: true, pools: { worker: { image: 'suite' }, master: { image: 'release' } } });

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Longduration-High-${CASE}-[Serial][Disruptive] upgrade with custom osImage in the worker pool only moves masters to the new release OS image`),
    session.test(
      { epic: 'MCO layering', feature: 'osImageURL override', story: 'only overridden pools keep the custom OS image', caseId: CASE, tags: ['Serial', 'Disruptive'],
        changes: [`MachineConfig ${WORKER_MC} (osImageURL: the suite's layered image, built and pushed by the run's first spec that uses it) on pool worker`] },
      async (s) => {
        const { from, image } = await s.phase('prepare', 'override the worker pool with a layered OS image', async () => {
          const start = await findStartingPoint(s);
          const image = await suiteLayeredOsImage(s, CASE, start.osImage);
          await overridePools(s, [{ name: WORKER_MC, role: 'worker', osImageURL: image.pullspec }]);
          return { from: start.version, image };
        });

        const upgraded = await s.upgradePhase(from);

        await s.phase('check', 'workers kept the custom image, masters run the new release OS image', async () => {
          await checkUpgradeCompleted(s, upgraded.version);
          await checkUpgradeInvariants(upgraded);
          const newOs = await findDefaultOsImage(s, upgraded.image, 'master');
          await checkPoolRunsImage(s, { pool: 'worker', image: image.pullspec, why: `custom image of ${WORKER_MC}`, ...image.checks, releaseVersion: upgraded.version });
          await checkPoolRunsImage(s, { pool: 'master', image: newOs.image, why: `${newOs.tag} of ${upgraded.version}; master was not overridden`, releaseVersion: upgraded.version });
        });
      },
    ),
  );
});
