/**
 * QE 54052: a custom osImage that is a container image but no OS image (no `ostree.bootable`, no ostree commit). The
 * node pulls it and cannot rebase to it: the pool must report NodeDegraded naming the node, the image and a reason
 * that says the image is not bootable, a failure of its own class, not spec 06's image that cannot be pulled. Deleting
 * the MachineConfig brings the pool back. The image is the release's own extensions image (a package repository), so
 * it can be pulled wherever the release can, as QE's hello-openshift can on a connected cluster.
 */
import { expect } from 'chai';
import { conformanceSession } from '../helpers/conformance.js';
import { osImageFailureOf } from '../helpers/os-image-failure.js';
import { applyOverrides, findReleaseExtensionsImage, findStartingPoint } from '../helpers/flows.js';
import { step } from '../helpers/report.js';

const CASE = '54052';
const WORKER_MC = 'tc-54052-not-bootable-os-image-worker';

describe('[sig-mco] MCO layering: not bootable custom osImage', function () {
  const session = conformanceSession({ disruptive: true, nodesIn: ['worker'] });

  it(
    session.title(`Author:ocp-e2e-NonPreRelease-Medium-${CASE}-[Serial][Disruptive] a custom osImage that is not bootable degrades the pool with the bootability reason, and deleting it restores the pool`),
    session.test(
      { epic: 'MCO layering', feature: 'osImageURL override', story: 'a bad custom image is reported, not hidden', caseId: CASE, severity: 'normal', tags: ['Serial', 'Disruptive'],
        changes: [`MachineConfig ${WORKER_MC} (osImageURL: the release's rhel-coreos-8-extensions image, which is no OS image) on pool worker, which degrades the pool until it is deleted`] },
      async (s) => {
        const { image, override } = await s.phase('prepare', 'point the worker pool at a container image that is not an OS image', async () => {
          const start = await findStartingPoint(s);
          const image = await findReleaseExtensionsImage(s, start.releaseImage);
          return { image, override: await applyOverrides(s, [{ name: WORKER_MC, role: 'worker', osImageURL: image }]) };
        });

        await s.phase('check', 'the worker pool reports the node that cannot boot the image, then recovers without it', async () => {
          const degraded = await override.expectDegradedNode('is not bootable');
          await step('a degraded worker node is named, with the image and a reason of the not-bootable class', async () => {
            expect(degraded.nodes, `no node is named in: ${degraded.message}`).to.not.be.empty;
            for (const node of degraded.nodes) {
              expect(degraded.message, `pool ${degraded.pool}: its NodeDegraded message names node ${node.name}`).to.include(`Node ${node.name} is reporting`);
              expect(node.osImageURL, `node ${node.name}: the image it failed to move to`).to.equal(image);
              const failure = await osImageFailureOf(s, node, image);
              expect(failure.class, `node ${node.name}: the failure must show the image is not bootable (and not that it cannot be pulled); read from ${failure.from}`).to.equal('not bootable');
            }
          });
          await override.remove();
        });
      },
    ),
  );
});
