/**
 * QE 85980's behaviour through an upgrade (issue 44): a custom pool of one worker is in image mode with a Containerfile
 * whose first step was written for the current release (it checks the base's /usr/lib/os-release is that release's, as
 * a step relying on the old release's content would), so its first build succeeds and rolls out. On the upgrade the
 * MCO rebuilds the pool's image FROM the new release's base by itself (modern-mco.md §2.1), and that build fails at the
 * pinned step. The suite's wait must say so at once, naming the MachineOSBuild, its Job and the failing step, and the
 * pool must show it as its release does (helpers/releases/image-build-failure.ts) while its node keeps booting the
 * first build. Such a pool is not Degraded, so it does not hold the upgrade back upstream; the spec leaves it out of
 * the upgrade's waits (helpers/upgrade-left-pools.ts) and judges it itself. Then the spec fixes the Containerfile: a
 * new MachineOSBuild succeeds FROM the new base, the failed one is deleted, the pool recovers and its node boots the new
 * build with the custom content; the upgrade completed and machine-config is not Degraded.
 */
import { checkUpgradeCompleted, checkUpgradeInvariants } from '../helpers/checks.js';
import { conformanceSession } from '../helpers/conformance.js';
import { findStartingPoint, findUpgradeTargetOs } from '../helpers/flows.js';
import { replaceContainerfile } from '../helpers/image-mode/containerfile-change.js';
import { imageModeContent } from '../helpers/image-mode/content.js';
import { expectBuildFails, waitForBuildDeleted } from '../helpers/image-mode/failed-build.js';
import { checkPoolRecovered, checkPoolStillOnBuild, waitForPoolToShowFailedBuild } from '../helpers/image-mode/failed-pool.js';
import { buildAndRollOut, putPoolInImageMode } from '../helpers/image-mode/flow.js';
import { checkImageModePool } from '../helpers/image-mode/pool-check.js';
import { imageModeUpgradeSpec } from '../helpers/image-mode/spec-options.js';
import { releaseLine, releasePin, withReleasePin } from '../helpers/image-mode/release-pin.js';
import { customPoolForSpec } from '../helpers/plan/spec-pool.js';
import { osReleaseOf } from '../helpers/release.js';
import { releaseRules } from '../helpers/releases/select.js';
import { judgePoolWithUpgrade, leavePoolOutOfUpgrade } from '../helpers/upgrade-left-pools.js';

const CASE = 'E2E-016';

describe('[sig-mco] MCO on-cluster image mode: an image-mode build that fails during an upgrade', function () {
  // the spec makes its own custom pool of one worker (or takes the one a shared run's plan gives it) and judges it alone
  const session = conformanceSession(imageModeUpgradeSpec());

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Longduration-High-${CASE}-[Serial][Disruptive] an image-mode build that fails FROM the new release's base is reported at once with its step, and a fixed Containerfile recovers the pool`),
    session.test(
      { epic: 'MCO on-cluster image mode', feature: 'MachineOSConfig', story: 'an image-mode build that fails during an upgrade', caseId: CASE, tags: ['Serial', 'Disruptive'],
        changes: [
          'MachineConfigPool ocp-e2e-16 with one worker node (unless the run\'s plan gives the spec a custom pool), annotated ocp-e2e.io/upgrade-leaves-pool until the spec has judged it',
          "MachineOSConfig of that pool (a file and a unit, after a step that fails on any release but the current one; then the same without that step) and its push Secret in openshift-machine-config-operator",
        ] },
      async (s) => {
        const { from, mode, first, next, pin, content } = await s.phase('prepare', 'put a custom pool in image mode with a step written for this release, and roll out its build', async () => {
          const start = await findStartingPoint(s);
          const next = await findUpgradeTargetOs(s);
          const current = await osReleaseOf(s.access, s.cluster, start.osImage);
          const { pool } = await customPoolForSpec(s, '16');
          const content = imageModeContent();
          // a step written for this release: it fails once the MCO rebuilds FROM the next release's base
          const pin = releasePin(releaseLine(current.contents ?? '', next.osRelease.contents ?? '', start.version, next.version ?? next.releaseImage), start.version);
          const mode = await putPoolInImageMode(s, { pool, caseId: CASE, containerfile: withReleasePin(content.containerfile, pin) });
          const first = await buildAndRollOut(s, mode);
          await checkImageModePool(s, { pool, machineOSConfig: mode.machineOSConfig, rolledOut: first, base: start.osImage, ...content.checks });
          await leavePoolOutOfUpgrade(s.cluster, pool, `${CASE} expects its image-mode rebuild FROM the new release's base to fail, and judges and recovers the pool itself after the upgrade`);
          return { from: start.version, mode, first, next, pin, content };
        });

        const upgraded = await s.upgradePhase(from);

        await s.phase('check', "the rebuild FROM the new release's base fails at the step written for the old release, the pool shows it, and a fixed Containerfile recovers it", async () => {
          const before = first.build.metadata.name!;
          const failed = await expectBuildFails(s, mode, [before], pin.run);
          await waitForPoolToShowFailedBuild(s, releaseRules(upgraded.version).rules, mode.pool, failed.build);
          await checkPoolStillOnBuild(s, mode.pool, first, failed.build);

          await replaceContainerfile(s, mode, content.containerfile);
          await waitForBuildDeleted(s, failed.build);
          const fixed = await buildAndRollOut(s, mode, [before, failed.build]);
          await checkImageModePool(s, {
            pool: mode.pool,
            machineOSConfig: mode.machineOSConfig,
            rolledOut: fixed,
            base: next.osImage,
            ...content.checks,
            files: [...(content.checks.files ?? []), next.osRelease],
          });
          await checkPoolRecovered(s, mode.pool);
          await judgePoolWithUpgrade(s.cluster, mode.pool);
          await checkUpgradeCompleted(s, upgraded.version);
          await checkUpgradeInvariants(upgraded);
        });
      },
    ),
  );
});
