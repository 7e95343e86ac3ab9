/**
 * The baseline: no override at all. After the upgrade every node runs the new release's OS image. If this fails, the
 * custom-image specs' failures say nothing about overrides.
 */
import { checkPoolRunsImage, checkUpgradeCompleted, checkUpgradeInvariants } from '../helpers/checks.js';
import { conformanceSession } from '../helpers/conformance.js';
import { findDefaultOsImage } from '../helpers/default-os-image.js';
import { findStartingPoint } from '../helpers/flows.js';

const CASE = 'E2E-003';

describe('[sig-mco] MCO upgrade baseline without an osImage override', function () {
  // on a compact or single-node cluster the worker pool has no node: the masters are judged alone
  const session = conformanceSession({ disruptive: true, upgrades: true, pools: { master: { image: 'release' }, worker: { image: 'release' } }, nodesIn: ['master'] });

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Longduration-High-${CASE}-[Serial][Disruptive] upgrade without override moves every node to the new release OS image`),
    session.test(
      { epic: 'MCO layering', feature: 'cluster upgrade', story: 'every node moves to the new release OS image', caseId: CASE, tags: ['Serial', 'Disruptive'], changes: [] },
      async (s) => {
        const from = await s.phase('prepare', 'note the current release', async () => (await findStartingPoint(s)).version);

        const upgraded = await s.upgradePhase(from);

        await s.phase('check', 'every node runs the new release OS image', async () => {
          await checkUpgradeCompleted(s, upgraded.version);
          await checkUpgradeInvariants(upgraded);
          for (const pool of ['master', 'worker'].filter((role) => s.poolHasNodes(role))) {
            const newOs = await findDefaultOsImage(s, upgraded.image, pool);
            await checkPoolRunsImage(s, { pool, image: newOs.image, why: `${newOs.tag} of ${upgraded.version}`, releaseVersion: upgraded.version });
          }
        });
      },
    ),
  );
});
