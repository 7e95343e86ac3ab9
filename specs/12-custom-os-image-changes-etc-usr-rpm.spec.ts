/**
 * QE 54085 ("Update osImage changing /etc /usr and rpm"), upgraded: a layered image of the case's own
 * (images/layered-os/54085/) adds files under /etc and /usr with exact modes (set-user-ID, set-group-ID and sticky bits
 * among them), an RPM from the release's extensions image and an enabled unit. Every worker shows all of it before
 * and after the upgrade. Then the override is deleted: the workers boot the new release's OS image, and every file,
 * the package and the unit are gone (what the image brought to /etc is the image's, not a local change that rpm-ostree
 * carries into the next deployment).
 */
import { checkPoolRunsImage, checkUpgradeCompleted, checkUpgradeInvariants } from '../helpers/checks.js';
import { conformanceSession } from '../helpers/conformance.js';
import { findDefaultOsImage } from '../helpers/default-os-image.js';
import { buildCustomOsImage, findStartingPoint, overridePools } from '../helpers/flows.js';
import { caseRecipe } from '../helpers/layered-image.js';

const CASE = '54085';
const WORKER_MC = `tc-${CASE}-update-os-image-worker`;

describe('[sig-mco] MCO layering: a custom osImage that changes /etc, /usr and the RPMs', function () {
  // after deleting its override it expects the release image and none of its image's files: no other spec's override may be on the pool
  const session = conformanceSession({ disruptive: true, upgrades: true, pools: { worker: { image: 'layered', alone: true } } });

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Longduration-Critical-${CASE}-[Serial][Disruptive] Update osImage changing /etc /usr and rpm, through an upgrade, then revert`),
    session.test(
      { epic: 'MCO layering', feature: 'osImageURL override', story: 'files, modes, RPMs and units of a custom image survive an upgrade and go with the override', caseId: CASE, tags: ['Serial', 'Disruptive'],
        changes: [`MachineConfig ${WORKER_MC} (osImageURL: the layered image of images/layered-os/${CASE}/, built and pushed by the test) on pool worker, deleted after the upgrade`] },
      async (s) => {
        const { from, image, override } = await s.phase('prepare', 'override the worker pool with a layered OS image that changes /etc, /usr and the RPMs', async () => {
          const start = await findStartingPoint(s);
          const image = await buildCustomOsImage(s, CASE, start.osImage, { recipe: caseRecipe(CASE) });
          const override = await overridePools(s, [{ name: WORKER_MC, role: 'worker', osImageURL: image.pullspec }]);
          await checkPoolRunsImage(s, { pool: 'worker', image: image.pullspec, why: `custom image of ${WORKER_MC}`, ...image.checks });
          return { from: start.version, image, override };
        });

        const upgraded = await s.upgradePhase(from);

        await s.phase('check', 'the workers kept all the image brought through the upgrade, and lose all of it with the override', async () => {
          await checkUpgradeCompleted(s, upgraded.version);
          await checkUpgradeInvariants(upgraded);
          await checkPoolRunsImage(s, { pool: 'worker', image: image.pullspec, why: `custom image of ${WORKER_MC}, through the upgrade`, ...image.checks, releaseVersion: upgraded.version });
          await override.remove({ settledAt: upgraded.version });
          const newOs = await findDefaultOsImage(s, upgraded.image, 'worker');
          await checkPoolRunsImage(s, {
            pool: 'worker',
            image: newOs.image,
            why: `${newOs.tag} of ${upgraded.version}; ${WORKER_MC} was deleted`,
            releaseVersion: upgraded.version,
            absentPackages: image.checks.packages,
            absentFiles: image.checks.files.map((f) => f.path),
            units: image.checks.units.map((u) => ({ name: u.name, enabled: false })),
          });
        });
      },
    ),
  );
});
