/**
 * What keeping a custom image through an upgrade costs: the overridden pool keeps its image's OS, and with it the
 * kubelet of the release the image was built on (the MCO does not upgrade an overridden pool's OS:
 * docs/UsingLayering.md). The kube-apiserver operator judges those kubelets for the next minor (even minors support
 * two Kubernetes minors behind, odd ones one: cluster-kube-apiserver-operator kubeletversionskewcontroller), so after
 * 4.21 → 4.22 the cluster is not upgradeable to 4.23. The spec reports which nodes hold it back and why, points the
 * pool at the image rebuilt FROM the new release's base as the docs tell the pool's owner (built before the upgrade,
 * so the check needs no engine), and sees the kubelets in step and kube-apiserver Upgradeable again. On an upgrade within a minor, or to an odd minor, the rule keeps the cluster upgradeable and the
 * spec checks that kube-apiserver says so.
 */
import { checkPoolRunsImage, checkUpgradeCompleted, checkUpgradeInvariants } from '../helpers/checks.js';
import { conformanceSession } from '../helpers/conformance.js';
import { buildCustomOsImage, findStartingPoint, findUpgradeTargetOs, overridePools, suiteLayeredOsImage } from '../helpers/flows.js';
import { checkKubeletSkew } from '../helpers/kubelet-skew.js';
import { openShiftMinor } from '../helpers/releases/version.js';

const CASE = 'E2E-014';
const WORKER_MC = 'tc-e2e-014-kubelet-skew-os-image-worker';
// sorts after WORKER_MC and after every other spec's override of the suite's image on a shared pool (tc-5…, tc-e2e-002,
// tc-e2e-011): the last osImageURL in name order wins, so the rebuilt image replaces the first
const REBUILT_MC = 'tc-e2e-014-kubelet-skew-rebuilt-os-image-worker';

describe('[sig-mco] MCO layering: the kubelet a custom osImage keeps through an upgrade', function () {
  // after the upgrade it puts the rebuilt image on its pool: a shared upgrade lets it share the pool with specs judged before it only
  const session = conformanceSession({ disruptive: true, upgrades: true, pools: { worker: { image: 'suite', changesAfterUpgrade: true }, master: { image: 'release' } } });

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Longduration-High-${CASE}-[Serial][Disruptive] a custom osImage kept through an upgrade keeps its kubelet; kube-apiserver judges it for the next minor until the image is rebuilt on the new base`),
    session.test(
      { epic: 'MCO layering', feature: 'osImageURL override', story: 'an overridden pool keeps its kubelet through an upgrade', caseId: CASE, tags: ['Serial', 'Disruptive'],
        changes: [`MachineConfig ${WORKER_MC} (osImageURL: the suite's layered image, built and pushed by the run's first spec that uses it) on pool worker`, `MachineConfig ${REBUILT_MC} (osImageURL: the image rebuilt on the new release's base) on pool worker, after the upgrade`] },
      async (s) => {
        // both images are built before the upgrade, so the check after it needs no engine (a pipeline's post step has none)
        const { from, image, rebuilt, next } = await s.phase('prepare', "override the worker pool with a layered OS image of the current release; build its rebuild on the next release's base", async () => {
          const start = await findStartingPoint(s);
          const next = await findUpgradeTargetOs(s);
          const image = await suiteLayeredOsImage(s, CASE, start.osImage);
          const rebuilt = await buildCustomOsImage(s, CASE, next.osImage, { releaseImage: next.releaseImage });
          await overridePools(s, [{ name: WORKER_MC, role: 'worker', osImageURL: image.pullspec }]);
          return { from: start.version, image, rebuilt, next: { osImage: next.osImage, osRelease: next.osRelease } };
        });

        const upgraded = await s.upgradePhase(from);

        await s.phase('check', "the workers keep their image's kubelet, kube-apiserver judges it, and the image rebuilt on the new base brings it in step", async () => {
          await checkUpgradeCompleted(s, upgraded.version);
          await checkUpgradeInvariants(upgraded);
          await checkPoolRunsImage(s, { pool: 'worker', image: image.pullspec, why: `custom image of ${WORKER_MC}`, ...image.checks, releaseVersion: upgraded.version });
          const before = openShiftMinor(from);
          const after = openShiftMinor(upgraded.version);
          await checkKubeletSkew(s, { worker: before, master: after });

          await overridePools(s, [{ name: REBUILT_MC, role: 'worker', osImageURL: rebuilt.pullspec }]);
          const why = `custom image rebuilt on ${next.osImage}, the base of ${upgraded.version}`;
          await checkPoolRunsImage(s, { pool: 'worker', image: rebuilt.pullspec, why, ...rebuilt.checks, files: [...rebuilt.checks.files, next.osRelease], releaseVersion: upgraded.version });
          await checkKubeletSkew(s, { worker: after, master: after });
        });
      },
    ),
  );
});
