/**
 * An osImageURL override on an image-mode pool (issue 44; QE 88202's premise: off-cluster and on-cluster layering on
 * one pool). From 4.22 the build starts FROM the pool's rendered osImageURL, so an override becomes the base of the
 * pool's image (MCO-1972); up to 4.21 the build ignores it as a base and the suite refuses such an override
 * (conformance.ts), so the spec runs only where the release it judges is 4.22+. No reference profile starts there,
 * so it is an upgrade spec: it puts a custom pool in image mode before the upgrade (as spec 15) and builds the
 * override image FROM the next release's base (so the check needs no engine), and on the upgraded release it
 *  1. waits for the rebuild the upgrade brings (FROM the release's base),
 *  2. adds the override: a new MachineOSBuild is built FROM the override image (its baseOSContainerImage label) and the
 *     node boots it with the content of both the override image and the MachineOSConfig,
 *  3. deletes the override: the pool's build is FROM the release's base again (upstream reuses the earlier build of
 *     the same rendered config, or builds one) and the node boots it without the override image's content.
 * Judged by the suite's release table (helpers/releases/), not the reference's profiles.
 */
import { checkUpgradeCompleted, checkUpgradeInvariants } from '../helpers/checks.js';
import { conformanceSession } from '../helpers/conformance.js';
import { applyOverrides, buildCustomOsImage, findStartingPoint, findUpgradeTargetOs } from '../helpers/flows.js';
import { imageModeContent } from '../helpers/image-mode/content.js';
import { buildAndRollOut, putPoolInImageMode } from '../helpers/image-mode/flow.js';
import { overrideNotBuildBase, overrideNotBuildBaseAfterUpgrade } from '../helpers/image-mode/override-base.js';
import { checkImageModePool } from '../helpers/image-mode/pool-check.js';
import { imageModeUpgradeSpec } from '../helpers/image-mode/spec-options.js';
import { customPoolForSpec } from '../helpers/plan/spec-pool.js';

const CASE = 'E2E-019';
const OVERRIDE_MC = 'tc-e2e-019-os-image-override';

describe('[sig-mco] MCO on-cluster image mode: an osImageURL override on an image-mode pool', function () {
  // the release it starts on must have image mode (the frame's rules); the release it upgrades to must build FROM the override
  const session = conformanceSession(imageModeUpgradeSpec(overrideNotBuildBaseAfterUpgrade));

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Longduration-High-${CASE}-[Serial][Disruptive] an osImageURL override on an image-mode pool becomes the base of its build, and deleting it builds FROM the release's base again`),
    session.test(
      { epic: 'MCO on-cluster image mode', feature: 'MachineOSConfig', story: 'an osImageURL override on an image-mode pool', caseId: CASE, tags: ['Serial', 'Disruptive'],
        changes: [
          "MachineConfigPool ocp-e2e-19 with one worker node (unless the run's plan gives the spec a custom pool)",
          'MachineOSConfig of that pool (a file and a unit) and its push Secret in openshift-machine-config-operator',
          `MachineConfig ${OVERRIDE_MC} (osImageURL: a layered image built by the test FROM the next release's base) on that pool after the upgrade, deleted again`,
        ] },
      async (s) => {
        const { from, mode, first, next, content, image } = await s.phase('prepare', "put a custom pool in image mode; build the override image FROM the next release's base", async () => {
          const start = await findStartingPoint(s);
          const next = await findUpgradeTargetOs(s);
          const image = await buildCustomOsImage(s, CASE, next.osImage, { releaseImage: next.releaseImage });
          const { pool } = await customPoolForSpec(s, '19');
          const content = imageModeContent();
          const mode = await putPoolInImageMode(s, { pool, caseId: CASE, containerfile: content.containerfile });
          const first = await buildAndRollOut(s, mode);
          await checkImageModePool(s, { pool, machineOSConfig: mode.machineOSConfig, rolledOut: first, base: start.osImage, ...content.checks });
          return { from: start.version, mode, first, next: { osImage: next.osImage, osRelease: next.osRelease }, content, image };
        });

        const upgraded = await s.upgradePhase(from);

        await s.phase('check', "the override is the base of the pool's build, and once deleted the release's base is again", async () => {
          // the suite's own table, not the reference's: the release the upgrade reached must build FROM the override
          const notBase = overrideNotBuildBase(s.release().rules);
          if (notBase) throw new Error(`the upgrade reached ${upgraded.version}, where the spec cannot judge an override as a base: ${notBase}`);
          await checkUpgradeCompleted(s, upgraded.version);
          await checkUpgradeInvariants(upgraded);
          const pool = mode.pool;
          const rebuilt = await buildAndRollOut(s, mode, [first.build.metadata.name!]);
          await checkImageModePool(s, { pool, machineOSConfig: mode.machineOSConfig, rolledOut: rebuilt, base: next.osImage, ...content.checks });

          // the role is the pool itself: the override must reach the spec's pool and no other
          const override = await applyOverrides(s, [{ name: OVERRIDE_MC, role: pool, osImageURL: image.pullspec }]);
          const overridden = await buildAndRollOut(s, mode, [first.build.metadata.name!, rebuilt.build.metadata.name!]);
          await checkImageModePool(s, {
            pool,
            machineOSConfig: mode.machineOSConfig,
            rolledOut: overridden,
            base: image.pullspec,
            packages: image.checks.packages,
            files: [...(content.checks.files ?? []), ...image.checks.files, next.osRelease],
            units: [...(content.checks.units ?? []), ...image.checks.units],
          });

          // the pool's rendered config is the one before the override again: its build (upstream reuses the earlier one
          // of that config, or builds anew) must be FROM the release's base, without what the override image layered
          await override.remove();
          const back = await buildAndRollOut(s, mode, [overridden.build.metadata.name!]);
          await checkImageModePool(s, {
            pool,
            machineOSConfig: mode.machineOSConfig,
            rolledOut: back,
            base: next.osImage,
            ...content.checks,
            absentFiles: image.checks.files.map((f) => f.path),
            absentPackages: image.checks.packages,
          });
        });
      },
    ),
  );
});
