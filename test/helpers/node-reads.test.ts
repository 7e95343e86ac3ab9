import { expect } from 'chai';
import { NODE_READS_AT_ONCE, readEach } from '../../helpers/node-reads.js';
import type { NodeRead } from '../../helpers/node-os.js';
import type { Node } from '../../helpers/types.js';

const nodes = (n: number): Node[] => Array.from({ length: n }, (_, i) => ({ metadata: { name: `node-${i}` } }) as Node);
const answer = (node: Node): NodeRead => ({ asked: { how: `read ${node.metadata?.name}`, output: '' } }) as unknown as NodeRead;

describe('helpers: the nodes of a pool are read at once, at most NODE_READS_AT_ONCE in flight', () => {
  it('starts reads up to the bound, never more, and gives each node its own answer in the order given', async () => {
    let inFlight = 0;
    let most = 0;
    const reads = readEach(nodes(10), async (node) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return answer(node);
    });
    const answers = await Promise.all(reads.reads);
    expect(answers.map((a) => a.asked.how)).to.deep.equal(nodes(10).map((n) => `read ${n.metadata?.name}`));
    expect(most, 'reads in flight at once').to.equal(NODE_READS_AT_ONCE);
  });

  it('settle after a failure starts no further read, waits for those under way, and leaves no unhandled rejection', async () => {
    const started: string[] = [];
    let underWay = 0;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const reads = readEach(nodes(10), async (node) => {
        started.push(node.metadata!.name!);
        underWay++;
        await new Promise((resolve) => setTimeout(resolve, 20));
        underWay--;
        if (node.metadata?.name === 'node-0') throw new Error('node-0 answered nothing');
        return answer(node);
      });
      const error = await reads.reads[0]!.then(() => undefined, (e: Error) => e);
      expect(error?.message).to.equal('node-0 answered nothing');
      await reads.settle();
      expect(underWay, 'no read still under way after settle').to.equal(0);
      expect(started.length, 'only the reads begun before the failure ran').to.be.at.most(NODE_READS_AT_ONCE + 1);
      const late = await reads.reads[9]!.then(() => undefined, (e: Error) => e.message);
      expect(late).to.equal('node node-9 was not read: the check had already failed');
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
