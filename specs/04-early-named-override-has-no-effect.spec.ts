/**
 * MCO merges MachineConfigs in name order and, up to 4.20, the templates (`00-<role>`, `01-<role>-*`) carry the release
 * OS image, so an override whose name sorts before them is silently overwritten: it must have no effect. From 4.21 the
 * templates carry no osImageURL and generated configs leave the osImageURL merge (MCO release-4.21
 * pkg/controller/template/render.go, pkg/controller/common/helpers.go): the premise is gone, and the same override
 * must win, as any other would.
 */
import { expect } from 'chai';
import { checkPoolRunsImage } from '../helpers/checks.js';
import { conformanceSession } from '../helpers/conformance.js';
import { findDefaultOsImage } from '../helpers/default-os-image.js';
import { buildCustomOsImage, findStartingPoint, overridePools } from '../helpers/flows.js';
import { step } from '../helpers/report.js';

const CASE = 'E2E-004';
// "00-aaa…" sorts before "00-worker" and "01-worker-kubelet": up to 4.20 the template's osImageURL is merged after it and wins.
const EARLY_MC = '00-aaa-tc-e2e-004-early-os-image-worker';

describe('[sig-mco] MCO layering: osImageURL override ordering', function () {
  const session = conformanceSession({ disruptive: true, nodesIn: ['worker'] });

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Medium-${CASE}-[Serial][Disruptive] an osImage override named before the templates loses to them, or wins where they left the merge (4.21+)`),
    session.test(
      { epic: 'MCO layering', feature: 'osImageURL override', story: 'overrides merge in name order', caseId: CASE, severity: 'normal', tags: ['Serial', 'Disruptive'],
        changes: [`MachineConfig ${EARLY_MC} (osImageURL: a layered image built and pushed by the test, expected to lose to the templates) on pool worker`] },
      async (s) => {
        const start = await s.phase('prepare', `apply ${EARLY_MC} with a layered OS image`, async () => {
          const start = await findStartingPoint(s);
          const image = await buildCustomOsImage(s, CASE, start.osImage);
          await step('the override name sorts before the worker templates', async () => {
            expect([EARLY_MC, '00-worker', '01-worker-kubelet'].sort()[0], 'the MachineConfig name must sort first').to.equal(EARLY_MC);
          });
          await overridePools(s, [{ name: EARLY_MC, role: 'worker', osImageURL: image.pullspec }]);
          return { ...start, custom: image.pullspec, defaultOs: await findDefaultOsImage(s, start.releaseImage) };
        });

        const { rules } = s.release();
        if (rules.render.generatedConfigsInOsImageMerge) {
          await s.phase('check', 'the worker pool still runs the release OS image', async () => {
            await checkPoolRunsImage(s, {
              pool: 'worker',
              image: start.defaultOs.image,
              why: `${start.defaultOs.tag} of ${start.version}; ${EARLY_MC} sorts before the templates, so its osImageURL must lose`,
            });
          });
        } else {
          await s.phase('check', `the worker pool runs the override: on ${rules.release} the templates carry no osImageURL`, async () => {
            await checkPoolRunsImage(s, {
              pool: 'worker',
              image: start.custom,
              why: `on OpenShift ${rules.release} generated MachineConfigs take no part in the osImageURL merge, so ${EARLY_MC} is the only one that sets it`,
            });
          });
        }
      },
    ),
  );
});
