/**
 * A build whose cached step image another build removed meanwhile (dockerd: "failed to set parent …: unknown parent
 * image ID" at export, or "unable to find image "sha256:…"" at the next step) is built once more; any other build
 * failure is not. The engine is a stand-in that answers with the
 * build streams dockerd sends.
 */
import { expect } from 'chai';
import { Readable } from 'node:stream';
import { buildImage } from '../../../lib/oci/build.js';
import type { Engine } from '../../../lib/oci/engine.js';

const RACE = 'failed to export image: failed to set parent sha256:85: unknown parent image ID sha256:85';
/** The same race one step earlier: the step after the cached one finds its parent gone (six clusters starting at once). */
const RACE_AT_NEXT_STEP = `unable to find image "sha256:${'09'.repeat(32)}"`;
const ID = `sha256:${'ab'.repeat(32)}`;

function engineAnswering(answers: Array<'race' | 'race-at-next-step' | 'step-failed' | 'ok'>): { engine: Engine; builds: () => number } {
  let builds = 0;
  const engine = {
    async buildImage() {
      const answer = answers[builds++] ?? 'ok';
      const lines = answer === 'ok'
        ? [{ stream: 'Step 1/1 : FROM scratch\n' }, { aux: { ID } }, { stream: `Successfully built ${ID.slice(7, 19)}\n` }]
        : [{ stream: 'Step 1/1 : FROM scratch\n' }, { errorDetail: { message: MESSAGES[answer] }, error: MESSAGES[answer] }];
      return Readable.from(lines.map((l) => `${JSON.stringify(l)}\n`));
    },
  } as unknown as Engine;
  return { engine, builds: () => builds };
}

const MESSAGES = { race: RACE, 'race-at-next-step': RACE_AT_NEXT_STEP, 'step-failed': 'The command returned a non-zero code: 1' };

const opts = { files: { Containerfile: 'FROM scratch\n' }, tag: 'ocp-e2e-test/build-retry:1' };

describe('lib/oci: a build that lost a cached step to another build', () => {
  it('is built once more, and that build is the result', async () => {
    const { engine, builds } = engineAnswering(['race', 'ok']);
    const built = await buildImage(engine, opts);
    expect([built.imageId, builds()]).to.deep.equal([ID, 2]);
    const atNextStep = engineAnswering(['race-at-next-step', 'ok']);
    expect([(await buildImage(atNextStep.engine, opts)).imageId, atNextStep.builds()]).to.deep.equal([ID, 2]);
  });

  it('fails when the second build fails the same way, and other failures are not built again', async () => {
    const twice = engineAnswering(['race', 'race']);
    const error = await buildImage(twice.engine, opts).then(() => undefined, (e: Error) => e);
    expect([error?.message, twice.builds()]).to.deep.equal([`The image build failed: ${RACE}\nFailing step: Step 1/1 : FROM scratch`, 2]);
    const failing = engineAnswering(['step-failed', 'ok']);
    await buildImage(failing.engine, opts).then(() => expect.fail('a failed step must fail the build'), () => undefined);
    expect(failing.builds()).to.equal(1);
  });
});
