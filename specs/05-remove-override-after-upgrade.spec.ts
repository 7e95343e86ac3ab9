/**
 * After an upgrade with both pools overridden, deleting the override MachineConfigs hands the nodes back to the OS image
 * of the release they now run (the layering docs: "rebuild your image after upgrading", or drop the override).
 */
import { checkPoolRunsImage, checkUpgradeCompleted } from '../helpers/checks.js';
import { waitForClusterSettled, waitForPools } from '../helpers/cluster-waits.js';
import { conformanceSession } from '../helpers/conformance.js';
import { buildCustomOsImage, findStartingPoint, overridePools, upgradeCluster, type CompletedUpgrade } from '../helpers/flows.js';
import { releaseOsImage } from '../helpers/release.js';
import { step } from '../helpers/report.js';

const CASE = 'E2E-005';
const MASTER_MC = 'tc-e2e-005-remove-after-upgrade-master';
const WORKER_MC = 'tc-e2e-005-remove-after-upgrade-worker';

describe('[sig-mco] MCO layering: removing the osImage override after an upgrade', function () {
  const session = conformanceSession({ disruptive: true, upgrades: true });

  it(
    `Author:ocp-e2e-NonPreRelease-Longduration-High-${CASE}-[Serial][Disruptive] deleting the osImage overrides after an upgrade returns the pools to the new release OS image`,
    session.test(
      { epic: 'MCO layering', feature: 'osImageURL override', story: 'removing an override restores the release OS image', caseId: CASE, tags: ['Serial', 'Disruptive'] },
      async (s) => {
        let upgraded!: CompletedUpgrade;
        const from = await s.phase('prepare', 'override both pools with a layered OS image', async () => {
          const start = await findStartingPoint(s);
          const image = await buildCustomOsImage(s, CASE, start.osImage);
          await overridePools(s, [
            { name: WORKER_MC, role: 'worker', osImageURL: image.pullspec },
            { name: MASTER_MC, role: 'master', osImageURL: image.pullspec },
          ]);
          return start.version;
        });

        await s.phase('upgrade', 'upgrade, then delete the overrides', async () => {
          upgraded = await upgradeCluster(s, from);
          await step(`delete MachineConfigs ${MASTER_MC}, ${WORKER_MC}`, async () => {
            await s.cluster.deleteMachineConfig(MASTER_MC);
            await s.cluster.deleteMachineConfig(WORKER_MC);
          });
          await step('wait until pools master, worker roll out without the overrides', () =>
            waitForPools(s.waits, { pools: ['master', 'worker'], sourcesExclude: { master: [MASTER_MC], worker: [WORKER_MC] }, releaseVersion: upgraded.version }),
          );
          // The operator checks the master pool's last rolled-out sources, which named the deleted MachineConfig until
          // the rollout finished, and the CVO relays that as Failing: give both their next sync to clear it.
          await step('wait for machine-config and ClusterVersion to settle', () => waitForClusterSettled(s.waits, upgraded.version));
        });

        await s.phase('check', 'every node runs the new release OS image again', async () => {
          await checkUpgradeCompleted(s, upgraded.version);
          const newOsImage = await releaseOsImage(upgraded.image);
          for (const pool of ['master', 'worker']) {
            await checkPoolRunsImage(s, { pool, image: newOsImage, why: `rhel-coreos-8 of ${upgraded.version}; the override was deleted`, releaseVersion: upgraded.version });
          }
        });
      },
    ),
  );
});
