/**
 * The SPDY/3 framing the kubelet stand-in's exec speaks (reference/kubelet/spdy-frames.ts), on its own: frames split
 * wherever the socket's chunks end, header blocks through one compression context per direction, and what it refuses.
 * The real client (oc 4.12's spdystream) judges it in test/reference/exec-spdy.test.ts.
 */
import { expect } from 'chai';
import { createDeflate, constants } from 'node:zlib';
import { SPDY3_DICTIONARY } from '../../../reference/kubelet/spdy-dictionary.js';
import { concat, controlFrame, dataFrame, FLAG_FIN, FRAME, FrameReader, HeaderCodec, words } from '../../../reference/kubelet/spdy-frames.js';

describe('SPDY/3 framing of the kubelet stand-in: frames and header blocks', () => {
  it('reads back control and data frames however the bytes are cut', () => {
    const bytes = concat([
      controlFrame(FRAME.PING, 0, words(7)),
      dataFrame(3, FLAG_FIN, Buffer.from('hello')),
      controlFrame(FRAME.GOAWAY, 0, words(3, 0)),
    ]);
    for (const cut of [1, 3, 8, 11, 20, bytes.length]) {
      const reader = new FrameReader();
      const frames = [];
      for (let at = 0; at < bytes.length; at += cut) frames.push(...reader.push(bytes.subarray(at, at + cut)));
      expect(frames.map((f) => (f.control ? `c${f.type}:${f.payload.toString('hex')}` : `d${f.streamId}/${f.flags}:${f.payload}`)), `cut every ${cut}`)
        .to.deep.equal(['c6:00000007', 'd3/1:hello', 'c7:0000000300000000']);
    }
  });

  it('refuses a control frame of another SPDY version', () => {
    const v2 = controlFrame(FRAME.PING, 0, words(1));
    v2.writeUInt16BE(0x8002, 0);
    expect(() => new FrameReader().push(v2)).to.throw('SPDY version 2 is not served (SPDY/3 is)');
  });

  it('header blocks round-trip through one context per direction, in order, names lower-cased', async () => {
    const client = new HeaderCodec();
    const server = new HeaderCodec();
    const first = await client.encode({ streamType: 'error' });
    const second = await client.encode({ streamType: 'stdout', 'X-Extra': 'a' });
    expect(await server.decode(first)).to.deep.equal({ streamtype: ['error'] });
    // the second block refers back to the first one's bytes: it reads only through the same context
    expect(await server.decode(second)).to.deep.equal({ streamtype: ['stdout'], 'x-extra': ['a'] });
    expect(await new HeaderCodec().decode(second).then(() => 'read', () => 'refused')).to.equal('refused');
    client.close();
    server.close();
  });

  it('reads a block any zlib with SPDY/3\'s dictionary wrote, and not one written with another dictionary', async () => {
    const block = concat([words(1, 10), Buffer.from('streamtype'), words(5), Buffer.from('stdin')]);
    const compress = (dictionary: Uint8Array) => new Promise<Buffer>((resolve) => {
      const z = createDeflate({ dictionary, flush: constants.Z_SYNC_FLUSH });
      const out: Buffer[] = [];
      z.on('data', (c: Buffer) => out.push(c));
      z.write(block, () => resolve(concat(out)));
    });
    expect(await new HeaderCodec().decode(await compress(SPDY3_DICTIONARY))).to.deep.equal({ streamtype: ['stdin'] });
    const other = await new HeaderCodec().decode(await compress(new TextEncoder().encode('streamtypestdin'))).then(() => 'read', (e: Error) => e.message);
    expect(other).to.match(/dictionary/i);
  });

  it('refuses a block that ends inside a name', async () => {
    const client = new HeaderCodec();
    const truncated = concat([words(1, 10), Buffer.from('stream')]);
    const compressed = await new Promise<Buffer>((resolve) => {
      const z = createDeflate({ dictionary: SPDY3_DICTIONARY, flush: constants.Z_SYNC_FLUSH });
      const out: Buffer[] = [];
      z.on('data', (c: Buffer) => out.push(c));
      z.write(truncated, () => resolve(concat(out)));
    });
    expect(await client.decode(compressed).then(() => 'read', (e: Error) => e.message)).to.equal('SPDY header block ends inside a name or value');
  });
});
