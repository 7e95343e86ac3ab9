/**
 * A custom image nobody can pull: the node cannot rebase, and the pool must report it as NodeDegraded, naming the node,
 * the image and the daemon's reason, which is everything a person needs to fix it. (How the suite words that failure
 * is tested in test/helpers.)
 */
import { expect } from 'chai';
import { conformanceSession } from '../helpers/conformance.js';
import { osImageFailureClass } from '../helpers/facts/os-image-failure.js';
import { applyOverrides } from '../helpers/flows.js';
import { unpullableImage } from '../helpers/images/repository.js';
import { step } from '../helpers/report.js';

const CASE = 'E2E-006';
const WORKER_MC = 'tc-e2e-006-unpullable-os-image-worker';

describe('[sig-mco] MCO layering: unpullable custom osImage', function () {
  const session = conformanceSession({ disruptive: true });

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Medium-${CASE}-[Serial][Disruptive] an unpullable custom osImage degrades the pool and the failure names node, image and reason`),
    session.test(
      { epic: 'MCO layering', feature: 'osImageURL override', story: 'a bad custom image is reported, not hidden', caseId: CASE, severity: 'normal', tags: ['Serial', 'Disruptive'],
        changes: [`MachineConfig ${WORKER_MC} (osImageURL: an image nobody can pull) on pool worker, which degrades the pool until it is deleted`] },
      async (s) => {
        const image = unpullableImage(s.target, s.caps);
        const override = await s.phase('prepare', `point the worker pool at ${image}`, () =>
          applyOverrides(s, [{ name: WORKER_MC, role: 'worker', osImageURL: image }]),
        );

        await s.phase('check', 'the worker pool reports the node that cannot pull the image', async () => {
          const degraded = await override.expectDegradedNode('cannot be pulled');
          await step('a degraded worker node is named, with the image it failed to move to and the reason', async () => {
            expect(degraded.nodes, `no node is named in: ${degraded.message}`).to.not.be.empty;
            for (const node of degraded.nodes) {
              expect(node.osImageURL, `node ${node.name}: the image it failed to move to`).to.equal(image);
              expect(node.reason ?? '', `node ${node.name}: no reason given`).to.not.equal('');
              // a class of its own: not spec 08's image that is pulled and cannot boot (QE 54054 against 54052)
              expect(osImageFailureClass(node.reason ?? '', image), `node ${node.name}: the reason must say the image cannot be pulled: ${node.reason}`).to.equal('not pullable');
            }
          });
        });
      },
    ),
  );
});
