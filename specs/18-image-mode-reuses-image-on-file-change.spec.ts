/**
 * A MachineConfig change that needs no new image (issue 44; QE 83755): an image-mode pool, built and rolled out, gets
 * a MachineConfig that only writes a file. From 4.20 only a change of the OS image, kernel type, extensions or kernel
 * arguments builds (MCO release-4.20 pkg/controller/common/helpers.go `RequiresRebuild`): the new rendered config gets a
 * MachineOSBuild that reuses the last image, no build runs, and the node gets the file on the image it boots. On 4.18
 * and 4.19 every new rendered config is built, and the spec judges that instead: a new build, rolled out. Either way
 * the daemon applies the file as any file outside its no-reboot lists, with a reboot (pkg/daemon/update.go
 * `calculatePostConfigChangeAction`). Nothing here upgrades: the spec runs whole, with --phase all.
 */
import { conformanceSession } from '../helpers/conformance.js';
import { applyOverrides, findStartingPoint } from '../helpers/flows.js';
import { imageModeContent } from '../helpers/image-mode/content.js';
import { buildAndRollOut } from '../helpers/image-mode/flow.js';
import { checkImageModePool } from '../helpers/image-mode/pool-check.js';
import { imageModePoolSpec } from '../helpers/image-mode/spec-options.js';
import { imageModePoolRolledOut } from '../helpers/image-mode/spec-pool.js';
import { checkImageReuse, expectsReuse } from '../helpers/image-mode/reuse.js';
import { checkPoolRebooted, readPoolBootIds } from '../helpers/node-boots.js';

const CASE = 'E2E-018';
/** The spec's own custom pool (a spec that does not upgrade is given none by a run's plan). */
const POOL = 'ocp-e2e-18';
const FILE_MC = 'tc-e2e-018-file';
const FILE = { path: '/etc/ocp-e2e/e2e-018.conf', mode: 0o644, contents: 'written by a MachineConfig of ocp-e2e E2E-018\n' };

describe('[sig-mco] MCO on-cluster image mode: a config change that needs no new image', function () {
  // no upgrade: it runs whole, with --phase all
  const session = conformanceSession(imageModePoolSpec());

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Longduration-High-${CASE}-[Serial][Disruptive] a MachineConfig that only writes a file reuses the image of an image-mode pool (4.20+), or is built where every config is`),
    session.test(
      { epic: 'MCO on-cluster image mode', feature: 'MachineOSConfig', story: 'a config change that needs no new image', caseId: CASE, tags: ['Serial', 'Disruptive'],
        changes: ['MachineConfigPool ocp-e2e-18 with one worker node', 'MachineOSConfig of that pool (a file and a unit) and its push Secret in openshift-machine-config-operator', `MachineConfig ${FILE_MC} (a file, ${FILE.path}) on pool ${POOL}`] },
      async (s) => {
        const { start, mode, first, content, bootIds } = await s.phase('prepare', 'put a custom pool in image mode and roll out its build', async () => {
          const start = await findStartingPoint(s);
          const content = imageModeContent();
          const { mode, first } = await imageModePoolRolledOut(s, { stem: '18', caseId: CASE, content, base: start.osImage });
          if (mode.pool !== POOL) throw new Error(`the spec made its pool ${POOL} but was given ${mode.pool}: it writes its MachineConfig for ${POOL}`);
          return { start, mode, first, content, bootIds: await readPoolBootIds(s.cluster, mode.pool) };
        });

        const { rules } = s.release();
        const change = `a MachineConfig that only writes ${FILE.path}`;
        await s.phase('check', expectsReuse(rules) ? `${change} reuses the pool's image` : `${change} is built into a new image (OpenShift ${rules.release})`, async () => {
          await applyOverrides(s, [{ name: FILE_MC, role: 'ocp-e2e-18', files: [FILE] }]);
          // the build of the pool's new rendered config, whether it ran a Job or reused the last image
          const second = await buildAndRollOut(s, mode, [first.build.metadata.name!]);
          await checkImageReuse(rules, change, first, second);
          await checkImageModePool(s, {
            pool: mode.pool,
            machineOSConfig: mode.machineOSConfig,
            rolledOut: second,
            // a reused image is labelled with the rendered config it was built for, the old one: only a new build's are judged
            ...(expectsReuse(rules) ? {} : { base: start.osImage }),
            ...content.checks,
            files: [...(content.checks.files ?? []), FILE],
          });
          await checkPoolRebooted(s.cluster, mode.pool, bootIds, `the daemon reboots for ${FILE.path}, a file outside its no-reboot lists`);
        });
      },
    ),
  );
});
