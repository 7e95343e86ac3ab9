/**
 * QE 54909: an RHCOS extension together with a custom OS image on the worker pool, then an upgrade. The daemon layers
 * the extension's packages (from the release's extensions image) onto the custom image; after the upgrade the
 * workers still boot the custom image and still have the extension installed.
 */
import { checkPoolRunsImage, checkUpgradeCompleted, checkUpgradeInvariants } from '../helpers/checks.js';
import { conformanceSession } from '../helpers/conformance.js';
import { findStartingPoint, overridePools, suiteLayeredOsImage } from '../helpers/flows.js';

const CASE = '54909';
const WORKER_MC = `tc-${CASE}-custom-os-image-extension-worker`;
/**
 * An extension the suite's layered image does not carry itself, so its packages can only come from the daemon (QE's
 * 54909 adds usbguard to an image without it, MCO main:test/extended-priv/mco_layering.go; the suite's image has
 * usbguard). Not kernel-devel: the MCO refuses kernel-devel beside the realtime kernel in one pool (pool-plan.ts
 * REFUSED_TOGETHER), so spec 10 could never share this spec's pool in a shared upgrade.
 */
const EXTENSION = 'kerberos';
const EXTENSION_PACKAGES = ['krb5-workstation', 'libkadm5'];

describe('[sig-mco] MCO layering: a custom osImage with an extension', function () {
  const session = conformanceSession({ disruptive: true, upgrades: true, pools: { worker: { image: 'suite', settings: [`extension:${EXTENSION}`] } } });

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Longduration-High-${CASE}-[Serial][Disruptive] upgrade with a custom osImage and the ${EXTENSION} extension keeps both`),
    session.test(
      { epic: 'MCO layering', feature: 'osImageURL override with extensions', story: 'extensions on a custom image survive an upgrade', caseId: CASE, tags: ['Serial', 'Disruptive'],
        changes: [`MachineConfig ${WORKER_MC} (osImageURL: the suite's layered image, built and pushed by the run's first spec that uses it; extensions: [${EXTENSION}]) on pool worker`] },
      async (s) => {
        const { from, image } = await s.phase('prepare', `override the worker pool with a layered OS image and the ${EXTENSION} extension`, async () => {
          const start = await findStartingPoint(s);
          const image = await suiteLayeredOsImage(s, CASE, start.osImage);
          await overridePools(s, [{ name: WORKER_MC, role: 'worker', osImageURL: image.pullspec, extensions: [EXTENSION] }]);
          await checkPoolRunsImage(s, { pool: 'worker', image: image.pullspec, why: `custom image and extension ${EXTENSION} of ${WORKER_MC}`, ...image.checks, packages: [...(image.checks.packages ?? []), ...EXTENSION_PACKAGES] });
          return { from: start.version, image };
        });

        const upgraded = await s.upgradePhase(from);

        await s.phase('check', `the workers kept the custom image and the ${EXTENSION} extension`, async () => {
          await checkUpgradeCompleted(s, upgraded.version);
          await checkUpgradeInvariants(upgraded);
          await checkPoolRunsImage(s, { pool: 'worker', image: image.pullspec, why: `custom image and extension ${EXTENSION} of ${WORKER_MC}, through the upgrade`, ...image.checks, packages: [...(image.checks.packages ?? []), ...EXTENSION_PACKAGES], releaseVersion: upgraded.version });
        });
      },
    ),
  );
});
