/**
 * The report's flow with the layered image rebuilt first on the base OS image of the release the cluster upgrades to,
 * as the MCO's layering docs tell an overridden pool's owner (docs/UsingLayering.md: the MCO does not upgrade an
 * overridden pool's OS; its owner rebuilds on the new base). Both pools boot the new release's OS, in the custom
 * image, before the upgrade, and still do after it. On 4.12-to-4.13 that is a 4.12 cluster whose nodes boot RHEL 9.2
 * (4.13's `rhel-coreos`) before the upgrade to 4.13.
 */
import { checkPoolRunsImage, checkUpgradeCompleted, checkUpgradeInvariants } from '../helpers/checks.js';
import { conformanceSession } from '../helpers/conformance.js';
import { buildCustomOsImage, findStartingPoint, findUpgradeTargetOs, overridePools } from '../helpers/flows.js';

const CASE = 'E2E-013';
const MASTER_MC = 'tc-e2e-013-next-release-os-image-master';
const WORKER_MC = 'tc-e2e-013-next-release-os-image-worker';

describe('[sig-mco] MCO layering: a custom osImage rebuilt on the next release before the upgrade', function () {
  // on a compact or single-node cluster the worker pool has no node: the masters are judged alone
  const session = conformanceSession({ disruptive: true, upgrades: true, pools: { master: { image: 'layered' }, worker: { image: 'layered' } }, nodesIn: ['master'] });

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Longduration-High-${CASE}-[Serial][Disruptive] upgrade with a custom osImage built on the next release's base keeps both pools on it`),
    session.test(
      { epic: 'MCO layering', feature: 'osImageURL override', story: 'a custom image rebuilt on the new base before an upgrade', caseId: CASE, tags: ['Serial', 'Disruptive'],
        changes: [`MachineConfig ${WORKER_MC} (osImageURL: a layered image built by the test on the next release's base OS image) on pool worker`, `MachineConfig ${MASTER_MC} (osImageURL: the same image) on pool master`] },
      async (s) => {
        const { from, image, next } = await s.phase('prepare', "override both pools with a layered OS image built on the next release's base", async () => {
          const start = await findStartingPoint(s);
          const next = await findUpgradeTargetOs(s);
          const image = await buildCustomOsImage(s, CASE, next.osImage, { releaseImage: next.releaseImage });
          await overridePools(s, [
            { name: WORKER_MC, role: 'worker', osImageURL: image.pullspec },
            { name: MASTER_MC, role: 'master', osImageURL: image.pullspec },
          ]);
          for (const pool of ['master', 'worker'].filter((role) => s.poolHasNodes(role))) {
            const why = `custom image on ${next.osImage}, the base of ${next.version ?? next.releaseImage}`;
            await checkPoolRunsImage(s, { pool, image: image.pullspec, why, ...image.checks, files: [...image.checks.files, next.osRelease] });
          }
          return { from: start.version, image, next };
        });

        const upgraded = await s.upgradePhase(from);

        await s.phase('check', "both pools kept the custom image on the new release's OS", async () => {
          await checkUpgradeCompleted(s, upgraded.version);
          await checkUpgradeInvariants(upgraded);
          for (const pool of ['master', 'worker'].filter((role) => s.poolHasNodes(role))) {
            const why = `custom image on ${next.osImage}, the base of ${upgraded.version}, through the upgrade`;
            await checkPoolRunsImage(s, { pool, image: image.pullspec, why, ...image.checks, files: [...image.checks.files, next.osRelease], releaseVersion: upgraded.version });
          }
        });
      },
    ),
  );
});
