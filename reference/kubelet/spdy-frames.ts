/**
 * SPDY/3 framing (draft-mbelshe-httpbis-spdy-00 §2.2-2.6), the part a server of client-go's SPDY streams needs: split
 * the byte stream into frames, write control and data frames, and the header blocks of SYN_STREAM / SYN_REPLY /
 * HEADERS, zlib-compressed with SPDY/3's dictionary in one compression context per direction and connection (so every
 * block must pass through it in the order it was sent). No npm library does this for non-HTTP streams: spdy-transport
 * insists on `:method`/`:path` in every SYN_STREAM and sends SETTINGS that client-go's spdystream does not handle.
 */
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';
import { SPDY3_DICTIONARY } from './spdy-dictionary.js';

export const SPDY_VERSION = 3;
export const FRAME = { SYN_STREAM: 1, SYN_REPLY: 2, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, HEADERS: 8, WINDOW_UPDATE: 9 } as const;
export const FLAG_FIN = 0x01;
/** The largest payload a frame's 24-bit length allows; data is sent in smaller pieces. */
const MAX_LENGTH = 0xffffff;
export const DATA_CHUNK = 32 * 1024;

/** Buffer.concat, typed for this project's TypeScript and @types/node (their Buffer and Uint8Array differ). */
export function concat(parts: Buffer[]): Buffer {
  return Buffer.concat(parts as unknown as Uint8Array[]);
}

export type Frame =
  | { control: true; type: number; flags: number; payload: Buffer }
  | { control: false; streamId: number; flags: number; payload: Buffer };

/** Accumulates bytes off the socket and hands back each whole frame; a frame of another version is an error. */
export class FrameReader {
  private pending = Buffer.alloc(0);

  push(chunk: Buffer): Frame[] {
    this.pending = this.pending.length ? concat([this.pending, chunk]) : chunk;
    const frames: Frame[] = [];
    while (this.pending.length >= 8) {
      const length = this.pending.readUIntBE(5, 3);
      if (this.pending.length < 8 + length) break;
      const word = this.pending.readUInt32BE(0);
      const flags = this.pending[4]!;
      const payload = this.pending.subarray(8, 8 + length);
      this.pending = this.pending.subarray(8 + length);
      if (word & 0x80000000) {
        const version = (word >>> 16) & 0x7fff;
        if (version !== SPDY_VERSION) throw new Error(`SPDY version ${version} is not served (SPDY/3 is)`);
        frames.push({ control: true, type: word & 0xffff, flags, payload });
      } else {
        frames.push({ control: false, streamId: word & 0x7fffffff, flags, payload });
      }
    }
    return frames;
  }
}

function header(first: number, flags: number, length: number): Buffer {
  if (length > MAX_LENGTH) throw new Error(`a SPDY frame holds at most ${MAX_LENGTH} bytes, not ${length}`);
  const out = Buffer.alloc(8);
  out.writeUInt32BE(first >>> 0, 0);
  out[4] = flags;
  out.writeUIntBE(length, 5, 3);
  return out;
}

export function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  return concat([header((0x8000 | SPDY_VERSION) * 0x10000 + type, flags, payload.length), payload]);
}

export function dataFrame(streamId: number, flags: number, data: Buffer): Buffer {
  return concat([header(streamId & 0x7fffffff, flags, data.length), data]);
}

/** 32-bit big-endian words, the fixed part of most control frames. */
export function words(...values: number[]): Buffer {
  const out = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => out.writeUInt32BE(v >>> 0, 4 * i));
  return out;
}

/** Header blocks: a count, then each name and value with 32-bit lengths; several values of a name NUL-separated. */
function encodeBlock(headers: Record<string, string>): Buffer {
  const parts = [words(Object.keys(headers).length)];
  for (const [name, value] of Object.entries(headers)) {
    const n = Buffer.from(name.toLowerCase());
    const v = Buffer.from(value);
    parts.push(words(n.length), n, words(v.length), v);
  }
  return concat(parts);
}

function decodeBlock(block: Buffer): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  let at = 0;
  const take = (): string => {
    if (at + 4 > block.length) throw new Error('SPDY header block ends inside a length');
    const length = block.readUInt32BE(at);
    if (at + 4 + length > block.length) throw new Error('SPDY header block ends inside a name or value');
    const text = block.subarray(at + 4, at + 4 + length).toString();
    at += 4 + length;
    return text;
  };
  const count = block.length >= 4 ? block.readUInt32BE(0) : 0;
  at = 4;
  for (let i = 0; i < count; i++) {
    const name = take();
    (out[name] ??= []).push(...take().split('\0'));
  }
  return out;
}

/** One zlib stream, sync-flushed after every block: what one write puts out is that block's output, in order. */
class ZlibContext {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly stream: Deflate | Inflate) {
    stream.on('error', () => undefined);
  }

  run(input: Buffer): Promise<Buffer> {
    const next = this.queue.then(() => new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const onData = (c: Buffer): void => { chunks.push(c); };
      const onError = (e: Error): void => { this.stream.off('data', onData); reject(e); };
      this.stream.on('data', onData);
      this.stream.once('error', onError);
      this.stream.write(input, () => {
        this.stream.off('data', onData);
        this.stream.off('error', onError);
        resolve(concat(chunks));
      });
    }));
    this.queue = next.catch(() => undefined);
    return next;
  }

  close(): void {
    this.stream.destroy();
  }
}

/** The header compression of one connection: the peer's blocks in, ours out. */
export class HeaderCodec {
  private readonly inflate = new ZlibContext(createInflate({ dictionary: SPDY3_DICTIONARY, flush: constants.Z_SYNC_FLUSH }));
  private readonly deflate = new ZlibContext(createDeflate({ dictionary: SPDY3_DICTIONARY, flush: constants.Z_SYNC_FLUSH }));

  async decode(compressed: Buffer): Promise<Record<string, string[]>> {
    return decodeBlock(await this.inflate.run(compressed));
  }

  encode(headers: Record<string, string>): Promise<Buffer> {
    return this.deflate.run(encodeBlock(headers));
  }

  close(): void {
    this.inflate.close();
    this.deflate.close();
  }
}
