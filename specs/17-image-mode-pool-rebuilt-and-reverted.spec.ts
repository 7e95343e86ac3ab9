/**
 * Rebuild and revert of an image-mode pool (issue 44; QE 77781's rebuild and revert): a custom pool of one worker in
 * on-cluster image mode, built and rolled out; then the MachineOSConfig gets the rebuild annotation, and the MCO must
 * make the pool's MachineOSBuild again (same name, same rendered config, a new image), take the annotation away and
 * roll the new image out; then the MachineOSConfig is deleted, and the pool must go back to its rendered config's OS
 * image, booted, without the custom content, its nodes without image annotations and no build or build Job left.
 * Nothing here upgrades: the spec runs whole, with --phase all.
 */
import { checkPoolRunsImage } from '../helpers/checks.js';
import { conformanceSession } from '../helpers/conformance.js';
import { findStartingPoint } from '../helpers/flows.js';
import { IMAGE_MODE_UNIT, imageModeContent } from '../helpers/image-mode/content.js';
import { buildAndRollOut, leaveImageMode } from '../helpers/image-mode/flow.js';
import { checkImageModePool } from '../helpers/image-mode/pool-check.js';
import { imageModePoolSpec } from '../helpers/image-mode/spec-options.js';
import { imageModePoolRolledOut } from '../helpers/image-mode/spec-pool.js';
import { checkRebuilt, requestRebuild } from '../helpers/image-mode/rebuild.js';
import { checkImageModeLeftNothing } from '../helpers/image-mode/revert.js';

const CASE = 'E2E-017';

describe('[sig-mco] MCO on-cluster image mode: rebuild and revert of an image-mode pool', function () {
  // no upgrade: it runs whole, with --phase all
  const session = conformanceSession(imageModePoolSpec());

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Longduration-High-${CASE}-[Serial][Disruptive] an image-mode pool is rebuilt on the rebuild annotation and goes back to the release's OS image when its MachineOSConfig is deleted`),
    session.test(
      { epic: 'MCO on-cluster image mode', feature: 'MachineOSConfig', story: 'rebuild and revert of an image-mode pool', caseId: CASE, tags: ['Serial', 'Disruptive'],
        changes: ['MachineConfigPool ocp-e2e-17 with one worker node', 'MachineOSConfig of that pool (a file and a unit) and its push Secret in openshift-machine-config-operator, annotated to rebuild, then deleted'] },
      async (s) => {
        const { start, mode, first, content } = await s.phase('prepare', 'put a custom pool in image mode and roll out its build', async () => {
          const start = await findStartingPoint(s);
          const content = imageModeContent();
          const { mode, first } = await imageModePoolRolledOut(s, { stem: '17', caseId: CASE, content, base: start.osImage });
          return { start, mode, first, content };
        });

        await s.phase('check', 'the rebuild annotation builds the same config again and the pool rolls the new image out', async () => {
          await requestRebuild(s, mode);
          // the rebuilt build keeps its name: only its uid tells it from the one rolled out
          const second = await buildAndRollOut(s, mode, [], [first.build.metadata.uid!]);
          await checkRebuilt(s, mode, first, second);
          await checkImageModePool(s, { pool: mode.pool, machineOSConfig: mode.machineOSConfig, rolledOut: second, base: start.osImage, ...content.checks });
        });

        await s.phase('check', "deleting the MachineOSConfig takes the pool back to the release's OS image and leaves nothing", async () => {
          await leaveImageMode(s, mode);
          await checkPoolRunsImage(s, {
            pool: mode.pool,
            image: start.osImage,
            why: `the OS image of ${start.version}, which the pool's rendered config names once machineosconfig/${mode.machineOSConfig} is deleted`,
            absentFiles: (content.checks.files ?? []).map((f) => f.path),
            units: [{ name: IMAGE_MODE_UNIT, enabled: false }],
          });
          await checkImageModeLeftNothing(s, mode);
        });
      },
    ),
  );
});
