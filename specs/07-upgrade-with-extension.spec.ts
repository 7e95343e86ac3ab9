/**
 * An RHCOS extension on the worker pool and no custom image: the upgrade moves the pool to the new release's OS
 * image, and the extension's package is still installed on every worker after it. A pool with an extension layers its
 * package again onto each new base, so an upgrade is an OS-only update that still needs the extensions repository
 * (upstream OCPBUGS-2271: without it the rebase fails and the pool never finishes the upgrade).
 */
import { checkPoolRunsImage, checkUpgradeCompleted, checkUpgradeInvariants } from '../helpers/checks.js';
import { conformanceSession } from '../helpers/conformance.js';
import { findDefaultOsImage } from '../helpers/default-os-image.js';
import { findStartingPoint, overridePools } from '../helpers/flows.js';

const CASE = 'E2E-007';
const WORKER_MC = 'tc-e2e-007-usbguard-extension-worker';
/** An extension of 4.12's list that the release's extensions image carries (images/rhcos-like/extensions-repo). */
const EXTENSION = 'usbguard';

describe('[sig-mco] MCO extensions: upgrade with an extension and no custom osImage', function () {
  // no osImageURL: the pool keeps the release's OS image, so a shared upgrade may give it a pool other release-image
  // specs use (they judge the image, which the extension leaves alone, not the packages)
  const session = conformanceSession({ disruptive: true, upgrades: true, pools: { worker: { image: 'release' } } });

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Longduration-High-${CASE}-[Serial][Disruptive] upgrade with the ${EXTENSION} extension keeps it installed on the new release OS image`),
    session.test(
      { epic: 'MCO extensions', feature: 'cluster upgrade', story: 'extensions survive an upgrade', caseId: CASE, tags: ['Serial', 'Disruptive'],
        changes: [`MachineConfig ${WORKER_MC} (extensions: [${EXTENSION}]) on pool worker`] },
      async (s) => {
        const from = await s.phase('prepare', `add the ${EXTENSION} extension to the worker pool`, async () => {
          const start = await findStartingPoint(s);
          await overridePools(s, [{ name: WORKER_MC, role: 'worker', extensions: [EXTENSION] }]);
          const os = await findDefaultOsImage(s, start.releaseImage);
          await checkPoolRunsImage(s, { pool: 'worker', image: os.image, why: `${os.tag} of ${start.version} with extension ${EXTENSION} of ${WORKER_MC}`, packages: [EXTENSION] });
          return start.version;
        });

        const upgraded = await s.upgradePhase(from);

        await s.phase('check', `the workers run the new release OS image with ${EXTENSION} still installed`, async () => {
          await checkUpgradeCompleted(s, upgraded.version);
          await checkUpgradeInvariants(upgraded);
          const newOs = await findDefaultOsImage(s, upgraded.image);
          await checkPoolRunsImage(s, { pool: 'worker', image: newOs.image, why: `${newOs.tag} of ${upgraded.version} with extension ${EXTENSION} of ${WORKER_MC}`, packages: [EXTENSION], releaseVersion: upgraded.version });
        });
      },
    ),
  );
});
