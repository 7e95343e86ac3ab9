/**
 * The report's question in on-cluster image mode (issue 44): a custom pool of one worker gets a MachineOSConfig whose
 * Containerfile adds a file, an enabled unit and a package of the release's extensions image; the MCO builds the
 * pool's image (a MachineOSBuild, Job build-<mosb>) and rolls it out. On the upgrade the MCO must rebuild it FROM the
 * new release's base by itself (modern-mco.md §2.1) and roll that out: the upgrade completes, machine-config is not
 * Degraded, and every node of the pool boots the new build with the custom content and the new release's OS. What
 * the monitor recorded during the upgrade must show the rollout went right on the way too: each node told a rendered
 * config with its own build's image, each MachineOSBuild made once, the pool never Degraded.
 */
import { checkUpgradeCompleted, checkUpgradeInvariants } from '../helpers/checks.js';
import { conformanceSession } from '../helpers/conformance.js';
import { findReleaseExtensionsImage, findStartingPoint, findUpgradeTargetOs } from '../helpers/flows.js';
import { imageModeUpgradeSpec } from '../helpers/image-mode/spec-options.js';
import { checkBuilderOnRelease } from '../helpers/image-mode/builder-check.js';
import { imageModeContent } from '../helpers/image-mode/content.js';
import { buildAndRollOut, putPoolInImageMode } from '../helpers/image-mode/flow.js';
import { checkImageModePool } from '../helpers/image-mode/pool-check.js';
import { checkImageModeRecord } from '../helpers/image-mode/record-check.js';
import { customPoolForSpec } from '../helpers/plan/spec-pool.js';

const CASE = 'E2E-015';
/** A package of every release's extensions image, which the stand-in OS and RHCOS both install with rpm-ostree. */
const PACKAGE = 'usbguard';

describe('[sig-mco] MCO on-cluster image mode: an image-mode pool through an upgrade', function () {
  // the spec makes its own custom pool of one worker (or takes the one a shared run's plan gives it) and judges it alone
  const session = conformanceSession(imageModeUpgradeSpec());

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Longduration-High-${CASE}-[Serial][Disruptive] an image-mode pool is rebuilt FROM the new release's base on upgrade and keeps its custom content`),
    session.test(
      { epic: 'MCO on-cluster image mode', feature: 'MachineOSConfig', story: 'an image-mode pool through an upgrade', caseId: CASE, tags: ['Serial', 'Disruptive'],
        changes: ['MachineConfigPool ocp-e2e-15 with one worker node (unless the run\'s plan gives the spec a custom pool)', `MachineOSConfig of that pool (a file, a unit and ${PACKAGE} from the release's extensions image) and its push Secret in openshift-machine-config-operator`] },
      async (s) => {
        const { from, mode, first, next, content } = await s.phase('prepare', 'put a custom pool in image mode and roll out its build', async () => {
          const start = await findStartingPoint(s);
          const next = await findUpgradeTargetOs(s);
          const extensions = await findReleaseExtensionsImage(s, start.releaseImage);
          const { pool } = await customPoolForSpec(s, '15');
          const content = imageModeContent({ image: extensions, package: PACKAGE });
          const mode = await putPoolInImageMode(s, { pool, caseId: CASE, containerfile: content.containerfile });
          const first = await buildAndRollOut(s, mode);
          await checkImageModePool(s, { pool, machineOSConfig: mode.machineOSConfig, rolledOut: first, base: start.osImage, ...content.checks });
          return { from: start.version, mode, first, next, content };
        });

        const upgraded = await s.upgradePhase(from);

        await s.phase('check', "the pool was rebuilt FROM the new release's base and boots it with its custom content", async () => {
          // the MCO rebuilds for the new rendered config by itself; a worker pool is not waited for by the upgrade
          const second = await buildAndRollOut(s, mode, [first.build.metadata.name!]);
          // the MachineOSBuilds look alike whichever release's builder made them: its image tells (OCPBUGS-56220)
          await checkBuilderOnRelease(s, upgraded.version, second.build.metadata.name!);
          await checkImageModePool(s, {
            pool: mode.pool,
            machineOSConfig: mode.machineOSConfig,
            rolledOut: second,
            base: next.osImage,
            ...content.checks,
            files: [...(content.checks.files ?? []), next.osRelease],
          });
          // the final state may look right after a rollout that went wrong on the way: the recording tells
          // (OCPBUGS-53408: config before its image; OCPBUGS-58238: a built config built again, pools Degraded)
          await checkImageModeRecord(upgraded, { pool: mode.pool, machineOSConfig: mode.machineOSConfig });
          await checkUpgradeCompleted(s, upgraded.version);
          await checkUpgradeInvariants(upgraded);
        });
      },
    ),
  );
});
