/**
 * A custom image nobody can pull: the node cannot rebase, and the pool must report it as NodeDegraded, naming the node,
 * the image and the daemon's reason, which is everything a person needs to fix it; and soon, not after the node has
 * looked busy for an hour (DEGRADED_WITHIN). (How the suite words that failure is tested in test/helpers.)
 */
import { expect } from 'chai';
import { conformanceSession } from '../helpers/conformance.js';
import { osImageFailureOf } from '../helpers/os-image-failure.js';
import { applyOverrides } from '../helpers/flows.js';
import { unpullableImage } from '../helpers/images/repository.js';
import { step } from '../helpers/report.js';

const CASE = 'E2E-006';
const WORKER_MC = 'tc-e2e-006-unpullable-os-image-worker';
/**
 * How soon after the MachineConfig is created the node that cannot pull its image must be reported degraded, in
 * cluster minutes (the target's clock: the reference's own, the wall clock on a real cluster). The 4.12 daemon gives
 * up on an unpullable image after a fixed number of tries: IsBootableImage inspects it 3 times (1 s, 2 s apart), then
 * runs `podman pull` 6 times (5 s doubling to 80 s), 158 s of waits plus the tries themselves; before that come the
 * render, the node controller's choice of the node and its drain. The reference takes 8m29s for all of it on 4.12-ga
 * with seed 1 (8m28s to 11m13s with seeds 1-5, 12m09s on the report's nightly, 9m00s on the fixed clock), and at most
 * about 12m40s with any seed (its drain and pull steps are 30-50% of a 10-20 minute update, plus the 158 s). A real
 * worker's drain, or a registry that makes each try time out, adds minutes, and on the reference a busy machine's CPU
 * stalls count at 600 cluster seconds per wall second: 20 minutes leaves room for those, where 15 would leave about two
 * above the reference's own slowest seed. It still fails a daemon that retries a pull that can never succeed for much
 * longer (OCPBUGS-1761 as reported; the reference plays it with the fault mcd-retries-unpullable-pulls, an hour of
 * retries), whose node looks busy instead of broken.
 */
const DEGRADED_WITHIN = { clusterMinutes: 20, why: "the 4.12 daemon's pull retries, 158 s of waits, plus the drain" };

describe('[sig-mco] MCO layering: unpullable custom osImage', function () {
  const session = conformanceSession({ disruptive: true, nodesIn: ['worker'] });

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
          const degraded = await override.expectDegradedNode('cannot be pulled', DEGRADED_WITHIN);
          await step('a degraded worker node is named, with the image it failed to move to and the reason', async () => {
            expect(degraded.nodes, `no node is named in: ${degraded.message}`).to.not.be.empty;
            for (const node of degraded.nodes) {
              expect(node.osImageURL, `node ${node.name}: the image it failed to move to`).to.equal(image);
              expect(node.reason ?? '', `node ${node.name}: no reason given`).to.not.equal('');
              // a class of its own: not spec 08's image that is pulled and cannot boot (QE 54054 against 54052)
              const failure = await osImageFailureOf(s, node, image);
              expect(failure.class, `node ${node.name}: the failure must show the image cannot be pulled; read from ${failure.from}`).to.equal('not pullable');
            }
          });
          await step(`the node was reported degraded within ${DEGRADED_WITHIN.clusterMinutes} cluster minutes of the MachineConfig`, async () => {
            const after = degraded.reportedAfter;
            expect(after, 'the MachineConfig was not created by this run: no span to judge').to.not.equal(undefined);
            const names = degraded.nodes.map((n) => n.name).join(', ');
            expect(
              after!.targetMs,
              `node ${names} of pool ${degraded.pool} was reported degraded ${after!.text} after MachineConfig ${WORKER_MC} was created, ` +
                `more than the bound of ${DEGRADED_WITHIN.clusterMinutes}m cluster time (${DEGRADED_WITHIN.why}); ` +
                `last seen before it: ${degraded.lastSeenBefore}`,
            ).to.be.at.most(DEGRADED_WITHIN.clusterMinutes * 60_000);
          });
        });
      },
    ),
  );
});
