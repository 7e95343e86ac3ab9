/**
 * The bug report, as QE case 54183: override the OS image of both pools with a layered image, upgrade, and expect the
 * upgrade to finish with every overridden node still on the custom image.
 */
import { checkPoolRunsImage, checkUpgradeCompleted, checkUpgradeInvariants } from '../helpers/checks.js';
import { conformanceSession } from '../helpers/conformance.js';
import { findStartingPoint, overridePools, suiteLayeredOsImage } from '../helpers/flows.js';

const CASE = '54183';
const MASTER_MC = `tc-${CASE}-new-os-image-upgrade-master`;
const WORKER_MC = `tc-${CASE}-new-os-image-upgrade-worker`;

describe('[sig-mco] MCO layering: upgrade with a custom osImage', function () {
  // the report is about these very pools (its bug is in the master pool's osImageURL check): a shared upgrade gives them to this spec
  // on a compact or single-node cluster the worker pool has no node: the masters (the workers there) are judged alone
  const session = conformanceSession({ disruptive: true, upgrades: true, pools: { master: { image: 'suite', own: true }, worker: { image: 'suite', own: true } }, nodesIn: ['master'] });

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Longduration-High-${CASE}-[Serial][Disruptive] upgrade with custom osImage in master and worker pools`),
    session.test(
      { epic: 'MCO layering', feature: 'osImageURL override', story: 'upgrade keeps the custom OS image', caseId: CASE, severity: 'critical', tags: ['Serial', 'Disruptive'],
        changes: [`MachineConfig ${WORKER_MC} (osImageURL: the suite's layered image, built and pushed by the run's first spec that uses it) on pool worker`, `MachineConfig ${MASTER_MC} (osImageURL: the same image) on pool master`] },
      async (s) => {
        const { from, image } = await s.phase('prepare', 'override both pools with a layered OS image', async () => {
          const start = await findStartingPoint(s);
          const image = await suiteLayeredOsImage(s, CASE, start.osImage);
          await overridePools(s, [
            { name: WORKER_MC, role: 'worker', osImageURL: image.pullspec },
            { name: MASTER_MC, role: 'master', osImageURL: image.pullspec },
          ]);
          return { from: start.version, image };
        });

        const upgraded = await s.upgradePhase(from);

        await s.phase('check', 'the upgrade completed and the overridden nodes kept the custom image', async () => {
          await checkUpgradeCompleted(s, upgraded.version);
          await checkUpgradeInvariants(upgraded);
          for (const pool of ['master', 'worker'].filter((role) => s.poolHasNodes(role))) {
            await checkPoolRunsImage(s, { pool, image: image.pullspec, why: `custom image of ${pool === 'master' ? MASTER_MC : WORKER_MC}`, ...image.checks, releaseVersion: upgraded.version });
          }
        });
      },
    ),
  );
});
