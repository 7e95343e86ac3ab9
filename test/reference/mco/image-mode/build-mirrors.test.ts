/**
 * The build pod pulls through the cluster's mirror sets (reference/mco/image-mode/build-mirrors.ts): the images a
 * Containerfile names in FROM lines and --from= flags are swapped for the copies that serve them, stage names and
 * labels are left alone, and a pull nothing serves fails with the resolver's words.
 */
import { expect } from 'chai';
import { followMirrors, pulledImages } from '../../../../reference/mco/image-mode/build-mirrors.js';

const BASE = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:' + 'a'.repeat(64);
const EXT = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:' + 'b'.repeat(64);
const CONTAINERFILE = [
  `FROM ${BASE} AS extract`,
  'RUN true',
  `FROM --platform=linux/amd64 ${BASE} AS configs`,
  'COPY --from=extract /etc/a /etc/a',
  `COPY --from=${EXT} /usr/share/rpm-ostree/extensions/ /tmp/ext/`,
  `LABEL baseOSContainerImage=${BASE}`,
  'FROM configs AS final',
].join('\n');
const mirrorOf = (ref: string): string => ref.replace('quay.io/openshift-release-dev', '127.0.0.1:5000/mirror');

describe('reference: an image build follows the mirror sets', () => {
  it('lists the pulled images once each, not stage names', () => {
    expect(pulledImages(CONTAINERFILE)).to.deep.equal([BASE, EXT]);
  });

  it('swaps each pulled image for its mirror, says so, and keeps the labels and stages', async () => {
    const said: string[] = [];
    const out = await followMirrors(CONTAINERFILE, async (ref) => mirrorOf(ref), (l) => said.push(l));
    expect(out.split('\n')).to.deep.equal([
      `FROM ${mirrorOf(BASE)} AS extract`,
      'RUN true',
      `FROM --platform=linux/amd64 ${mirrorOf(BASE)} AS configs`,
      'COPY --from=extract /etc/a /etc/a',
      `COPY --from=${mirrorOf(EXT)} /usr/share/rpm-ostree/extensions/ /tmp/ext/`,
      `LABEL baseOSContainerImage=${BASE}`,
      'FROM configs AS final',
    ]);
    expect(said).to.have.length(2);
    expect(said[0]).to.equal(`${BASE} is pulled from ${mirrorOf(BASE)} (the mirror sets in the rendered config's /etc/containers/registries.conf)`);
  });

  it('leaves a Containerfile whose images need no mirror as it is', async () => {
    const out = await followMirrors(CONTAINERFILE, async (ref) => ref, () => expect.fail('nothing to say'));
    expect(out).to.equal(CONTAINERFILE);
  });

  it('fails with the resolver\'s words when nothing serves a pull', async () => {
    const err = await followMirrors(CONTAINERFILE, async () => { throw new Error('pinging container registry quay.io: no such host'); }, () => {}).catch((e: Error) => e);
    expect((err as Error).message).to.include('no such host');
  });
});
