/**
 * After an upgrade with both pools overridden, deleting the override MachineConfigs hands the nodes back to the OS image
 * of the release they now run (the layering docs: "rebuild your image after upgrading", or drop the override).
 */
import { checkPoolRunsImage, checkUpgradeCompleted } from '../helpers/checks.js';
import { conformanceSession } from '../helpers/conformance.js';
import { findDefaultOsImage } from '../helpers/default-os-image.js';
import { buildCustomOsImage, findStartingPoint, overridePools } from '../helpers/flows.js';

const CASE = 'E2E-005';
const MASTER_MC = 'tc-e2e-005-remove-after-upgrade-master';
const WORKER_MC = 'tc-e2e-005-remove-after-upgrade-worker';

describe('[sig-mco] MCO layering: removing the osImage override after an upgrade', function () {
  // after deleting its overrides it expects the release image: no other spec's override may be on its pools
  // on a compact or single-node cluster the worker pool has no node: the masters are judged alone
  const session = conformanceSession({ disruptive: true, upgrades: true, pools: { master: { image: 'layered', alone: true }, worker: { image: 'layered', alone: true } }, nodesIn: ['master'] });

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Longduration-High-${CASE}-[Serial][Disruptive] deleting the osImage overrides after an upgrade returns the pools to the new release OS image`),
    session.test(
      { epic: 'MCO layering', feature: 'osImageURL override', story: 'removing an override restores the release OS image', caseId: CASE, tags: ['Serial', 'Disruptive'],
        changes: [`MachineConfig ${WORKER_MC} (osImageURL: a layered image built and pushed by the test) on pool worker, deleted after the upgrade`, `MachineConfig ${MASTER_MC} (osImageURL: the same image) on pool master, deleted after the upgrade`] },
      async (s) => {
        const { from, override } = await s.phase('prepare', 'override both pools with a layered OS image', async () => {
          const start = await findStartingPoint(s);
          const image = await buildCustomOsImage(s, CASE, start.osImage);
          const override = await overridePools(s, [
            { name: WORKER_MC, role: 'worker', osImageURL: image.pullspec },
            { name: MASTER_MC, role: 'master', osImageURL: image.pullspec },
          ]);
          return { from: start.version, override };
        });

        const upgraded = await s.upgradePhase(from);

        await s.phase('check', 'after deleting the overrides every node runs the new release OS image again', async () => {
          await checkUpgradeCompleted(s, upgraded.version);
          await override.remove({ settledAt: upgraded.version });
          for (const pool of ['master', 'worker'].filter((role) => s.poolHasNodes(role))) {
            const newOs = await findDefaultOsImage(s, upgraded.image, pool);
            await checkPoolRunsImage(s, { pool, image: newOs.image, why: `${newOs.tag} of ${upgraded.version}; the override was deleted`, releaseVersion: upgraded.version });
          }
        });
      },
    ),
  );
});
