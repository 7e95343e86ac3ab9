/**
 * The input a session holds for its command (input-feed.ts) and the resize messages of both clients' spellings.
 */
import { expect } from 'chai';
import { InputFeed, parseResizes } from '../../../reference/kubelet/input-feed.js';
import type { TerminalSize } from '../../../reference/node-fs/node-command.js';

function recorder() {
  const events: string[] = [];
  return {
    events,
    control: {
      input: { write: (c: Buffer) => events.push(`in:${c.toString()}`), end: () => events.push('end') },
      resize: (s: TerminalSize) => events.push(`size:${s.cols}x${s.rows}`),
    },
  };
}

describe('reference kubelet: a session\'s input for its command', () => {
  it('holds input, its end and the newest size until the command runs, then passes them on in order', () => {
    const feed = new InputFeed();
    feed.write(Buffer.from('a'));
    feed.resize({ cols: 80, rows: 24 });
    feed.write(Buffer.from('b'));
    feed.resize({ cols: 100, rows: 30 });
    feed.end();
    feed.write(Buffer.from('after the end'));
    const r = recorder();
    feed.connect(r.control);
    expect(r.events).to.deep.equal(['in:a', 'in:b', 'end', 'size:100x30']);
  });

  it('passes input straight on once connected, and ends it once', () => {
    const feed = new InputFeed();
    const r = recorder();
    feed.connect(r.control);
    feed.write(Buffer.from('x'));
    feed.end();
    feed.end();
    expect(r.events).to.deep.equal(['in:x', 'end']);
  });

  it('resizes from a resize stream\'s bytes as they come, a message split across two chunks included', () => {
    const feed = new InputFeed();
    const r = recorder();
    feed.connect(r.control);
    feed.resizeBytes(Buffer.from('{"Width":120,"Hei'));
    feed.resizeBytes(Buffer.from('ght":40}{"width":90,"height":20}'));
    expect(r.events).to.deep.equal(['size:120x40', 'size:90x20']);
  });

  it('reads client-go\'s and client-node\'s resize messages, split or joined, and drops what is no size', () => {
    expect(parseResizes('{"Width":120,"Height":40}{"width":90,"height":20}').sizes).to.deep.equal([{ cols: 120, rows: 40 }, { cols: 90, rows: 20 }]);
    const first = parseResizes('{"Width":7');
    expect(first).to.deep.equal({ sizes: [], rest: '{"Width":7' });
    expect(parseResizes(`${first.rest}0,"Height":9}`).sizes).to.deep.equal([{ cols: 70, rows: 9 }]);
    expect(parseResizes('{"Width":0,"Height":9}{not json}{"Width":"a"}').sizes).to.deep.equal([]);
  });
});
