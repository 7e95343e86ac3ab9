import { expect } from 'chai';
describe('smoke', () => {
  it('adds', () => { expect(1 + 1).to.equal(2); });
  it.skip('skips', () => {});
});
