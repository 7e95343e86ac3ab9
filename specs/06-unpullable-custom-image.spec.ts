/**
 * A custom image nobody can pull: the node cannot rebase, the pool must report NodeDegraded, and the suite's failure
 * text must say which node, which image and why, which is everything a person needs to fix it.
 */
import { expect } from 'chai';
import { waitForPools } from '../helpers/cluster-waits.js';
import { conformanceSession } from '../helpers/conformance.js';
import { unpullableImage } from '../helpers/layered-image.js';
import { createOsImageOverrides } from '../helpers/machineconfigs.js';
import { recoverDegradedNodes } from '../helpers/recovery.js';
import { attachText, step } from '../helpers/report.js';
import { WaitFailedError } from '../helpers/wait.js';

const CASE = 'E2E-006';
const WORKER_MC = 'tc-e2e-006-unpullable-os-image-worker';

describe('[sig-mco] MCO layering: unpullable custom osImage', function () {
  const session = conformanceSession({ disruptive: true });

  it(
    `Author:ocp-e2e-NonPreRelease-Medium-${CASE}-[Serial][Disruptive] an unpullable custom osImage degrades the pool and the failure names node, image and reason`,
    session.test(
      { epic: 'MCO layering', feature: 'osImageURL override', story: 'a bad custom image is reported, not hidden', caseId: CASE, severity: 'normal', tags: ['Serial', 'Disruptive'] },
      async (s) => {
        const image = unpullableImage(s.target, s.caps);
        let failure!: Error;
        await s.phase('prepare', `point the worker pool at ${image}`, async () => {
          // Registered before the MachineConfig exists, so LIFO runs them after its deletion: re-point the node that
          // stays degraded (MCO will not), then wait for the pool to settle.
          s.cleanup.add(
            `wait until pool worker settles without ${WORKER_MC}`,
            () => waitForPools(s.waits, { pools: ['worker'], sourcesExclude: { worker: [WORKER_MC] } }).then(() => undefined),
            { settles: true },
          );
          s.cleanup.add(
            'point degraded worker nodes back at the config they run',
            async () => {
              const nodes = await recoverDegradedNodes(s.cluster, s.waits, 'worker', [WORKER_MC]);
              if (nodes.length) console.log(`    recovered degraded nodes: ${nodes.join(', ')}`);
            },
            { settles: true },
          );
          await createOsImageOverrides(s.cluster, s.cleanup, [{ name: WORKER_MC, role: 'worker', osImageURL: image }], s.target.runId);
        });

        await s.phase('check', 'the worker pool reports the node that cannot pull the image', async () => {
          await step('wait for the worker pool: it must not roll out', async () => {
            try {
              await waitForPools(s.waits, { pools: ['worker'], sourcesInclude: { worker: [WORKER_MC] } });
            } catch (error) {
              failure = error as Error;
              return;
            }
            expect.fail(`pool worker rolled out ${image}, which cannot be pulled, without reporting a degraded node: the pull error was hidden`);
          });
          await attachText('failure text', failure.message);
          await step('the failure is a degraded pool, not a timeout', async () => {
            expect(failure, `expected the wait to stop on a degraded pool, got: ${failure.message}`).to.be.instanceOf(WaitFailedError);
          });
          const workers = (await s.cluster.listNodes()).map((n) => n.metadata?.name ?? '');
          await step('the failure text names the node, the image and the reason', async () => {
            const named = workers.filter((n) => n && failure.message.includes(`node ${n} `));
            expect(named, `no worker node is named in: ${failure.message}`).to.not.be.empty;
            expect(failure.message, 'the failure text does not quote the image').to.include(image);
            const reason = /with osImageURL \S+: (.+)/.exec(failure.message)?.[1] ?? '';
            expect(reason.trim(), `the failure text gives no reason: ${failure.message}`).to.not.match(/^(no reason given)?$/);
          });
        });
      },
    ),
  );
});
