/** Pod names the reference makes up or hashes: stable for the same input, in the generated-name alphabet. */
import { expect } from 'chai';
import { createRng } from '../../../reference/rng.js';
import { nameHash, randomSuffix, stableSuffix, templateHash } from '../../../reference/workloads/pod-names.js';

const ALPHABET = /^[bcdfghjklmnpqrstvwxz2456789]+$/;

describe('pod names', () => {
  it('a node always gets the same five-letter daemon pod suffix, and two nodes different ones', () => {
    const node = 'ip-10-0-160-20.us-east-2.compute.internal';
    // the value the cluster assembly made before the hash moved here: a changed one renames every made-up daemon pod
    expect(stableSuffix(node)).to.equal('5nwqg');
    expect(stableSuffix('ip-10-0-160-21.us-east-2.compute.internal')).to.match(ALPHABET).and.not.equal('5nwqg');
  });

  it("a component's made-up pod names follow the cluster seed", () => {
    const name = (seed: number) => {
      const rng = createRng(seed ^ nameHash('machine-config-operator'));
      return `${randomSuffix(rng, 10)}-${randomSuffix(rng, 5)}`;
    };
    expect(name(1)).to.equal('chtrc2xvjf-f9kww');
    expect(name(7)).to.equal('g5xnhkw4mk-nv8h6');
  });

  it('the pod-template-hash is ten letters, the same for equal templates whatever their key order, and new for a changed one', () => {
    const a = { metadata: { labels: { 'k8s-app': 'machine-config-operator' } }, spec: { containers: [{ name: 'machine-config-operator', image: 'x' }] } };
    const reordered = { spec: { containers: [{ image: 'x', name: 'machine-config-operator' }] }, metadata: { labels: { 'k8s-app': 'machine-config-operator' } } };
    expect(templateHash(a)).to.equal('rpmnpxj2pm');
    expect(templateHash(reordered)).to.equal(templateHash(a));
    expect(templateHash({ ...a, spec: { containers: [{ name: 'machine-config-operator', image: 'y' }] } })).to.match(ALPHABET).and.not.equal(templateHash(a));
  });
});
