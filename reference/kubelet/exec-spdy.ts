/**
 * Exec over SPDY/3.1, as `oc` 4.12 and client-go of its age speak it (k8s.io/apimachinery httpstream/spdy, client-go
 * remotecommand, the spdystream framer): the client's upgrade request offers stream protocols in
 * `X-Stream-Protocol-Version`; the kubelet answers 101 with the one it picked, then the client opens one SPDY stream
 * per purpose, named by its `streamType` header (error, stdin, stdout, stderr, resize), and each is answered with a
 * SYN_REPLY. Once every stream the request asked for is open, the command runs; its output goes on stdout and stderr,
 * the exit status as a v1 Status on the error stream (v4.channel.k8s.io: Success too), every stream is closed, then
 * GOAWAY, and the connection ends when the client lets go of it. Framing is spdy-frames.ts.
 * Output is sent as it comes; the stdin stream is the command's input (its FIN ends it) and the resize stream sizes
 * its terminal (`tty=true`). Not served: the older stream protocols (v1-v3 carry no exit status), flow
 * control of the output (no WINDOW_UPDATE is waited for: right while an output stays below SPDY's 64 KiB initial
 * window; the client's input is given its window back).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ExecIo } from './exec-command.js';
import { statusFor } from './exec-status.js';
import { InputFeed } from './input-feed.js';
import { controlFrame, DATA_CHUNK, dataFrame, FLAG_FIN, FRAME, FrameReader, HeaderCodec, words, concat, type Frame } from './spdy-frames.js';

export const SPDY_EXEC_PROTOCOLS = ['v4.channel.k8s.io'] as const;

/** How long the kubelet waits for the client to open the streams it asked for (remotecommand's 30 s default). */
const STREAM_CREATION_TIMEOUT_MS = 30_000;
/** How long an ended session waits for the client to close the connection before it is closed from here. */
const DRAIN_TIMEOUT_MS = 5_000;

export interface SpdyExec {
  argv: string[];
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
  /** Runs the command, its output to `io` as it comes; never rejects (a failure of the stand-in is the command's own exit status). */
  run(io: ExecIo, signal: AbortSignal): Promise<number>;
}

/** Whether an upgrade request asks for SPDY (`Upgrade: SPDY/3.1`). */
export function isSpdyUpgrade(req: IncomingMessage): boolean {
  return /^spdy\/3(\.1)?$/i.test(req.headers.upgrade ?? '');
}

/**
 * The stream protocol both sides speak, or the kubelet's 403 refusal (httpstream.Handshake): the client lists what
 * it speaks in one or more `X-Stream-Protocol-Version` headers, and the first of them the server speaks wins.
 */
export function negotiateSpdy(req: IncomingMessage): { protocol: string } | { code: number; message: string } {
  const offered = (req.headersDistinct['x-stream-protocol-version'] ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  const protocol = offered.find((p) => (SPDY_EXEC_PROTOCOLS as readonly string[]).includes(p));
  if (protocol) return { protocol };
  return { code: 403, message: `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server supports [${SPDY_EXEC_PROTOCOLS.join(' ')}]\n` };
}

/** Takes the upgraded socket over: 101, the streams, the command, its output and status, GOAWAY. */
export function serveSpdyExec(socket: Duplex, head: Buffer, protocol: string, exec: SpdyExec): { close(): void } {
  const session = new Session(socket, exec);
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`);
  if (head.length) session.read(head);
  void session.serve(protocol);
  return { close: () => session.cut() };
}

class Session {
  private readonly reader = new FrameReader();
  private readonly codec = new HeaderCodec();
  /** Streams the client opened, by their streamType. */
  private readonly streams = new Map<string, number>();
  private readonly expected: string[];
  private lastStreamId = 0;
  private incoming: Promise<void> = Promise.resolve();
  private outgoing: Promise<void> = Promise.resolve();
  private gone = false;
  /** Aborted when the client goes: the command is killed with everything it started. */
  private readonly ended = new AbortController();
  private opened!: (ok: boolean) => void;
  private readonly allOpen = new Promise<boolean>((resolve) => { this.opened = resolve; });
  private readonly feed = new InputFeed();

  constructor(private readonly socket: Duplex, private readonly exec: SpdyExec) {
    this.expected = ['error', ...(exec.stdin ? ['stdin'] : []), ...(exec.stdout ? ['stdout'] : []), ...(exec.stderr ? ['stderr'] : []), ...(exec.tty ? ['resize'] : [])];
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.once('close', () => {
      this.gone = true;
      this.ended.abort();
      this.codec.close();
      this.opened(false);
    });
  }

  read(chunk: Buffer): void {
    let frames: Frame[];
    try {
      frames = this.reader.push(chunk);
    } catch {
      return this.cut();
    }
    for (const frame of frames) this.incoming = this.incoming.then(() => this.handle(frame)).catch(() => this.cut());
  }

  cut(): void {
    this.gone = true;
    this.ended.abort();
    this.socket.destroy();
  }

  async serve(protocol: string): Promise<void> {
    const timer = setTimeout(() => this.opened(false), STREAM_CREATION_TIMEOUT_MS);
    const ok = await this.allOpen;
    clearTimeout(timer);
    if (!ok) return this.cut();
    const exitCode = await this.exec.run({
      stdout: (c) => this.sendData('stdout', c, false),
      stderr: (c) => this.sendData('stderr', c, false),
      started: (control) => this.feed.connect(control),
    }, this.ended.signal);
    if (this.gone) return;
    for (const type of ['stdout', 'stderr']) this.sendData(type, Buffer.alloc(0));
    this.sendData('error', Buffer.from(statusFor(protocol, this.exec.argv, exitCode)));
    for (const type of ['stdin', 'resize']) this.sendData(type, Buffer.alloc(0));
    this.send(async () => controlFrame(FRAME.GOAWAY, 0, words(this.lastStreamId, 0)));
    await this.outgoing;
    // the client closes the connection once it has the status; one that does not is let go of after a while
    const timer2 = setTimeout(() => this.socket.end(), DRAIN_TIMEOUT_MS);
    this.socket.once('close', () => clearTimeout(timer2));
  }

  private async handle(frame: Frame): Promise<void> {
    if (!frame.control) return this.takeData(frame.streamId, frame.payload, (frame.flags & FLAG_FIN) !== 0);
    switch (frame.type) {
      case FRAME.SYN_STREAM: {
        const id = frame.payload.readUInt32BE(0) & 0x7fffffff;
        const headers = await this.codec.decode(frame.payload.subarray(10));
        this.lastStreamId = Math.max(this.lastStreamId, id);
        const type = headers.streamtype?.[0] ?? '';
        if (!this.expected.includes(type) || this.streams.has(type)) {
          // REFUSED_STREAM: a stream this request did not ask for
          this.send(async () => controlFrame(FRAME.RST_STREAM, 0, words(id, 3)));
          return;
        }
        this.streams.set(type, id);
        this.send(async () => controlFrame(FRAME.SYN_REPLY, 0, concat([words(id), await this.codec.encode({})])));
        if (this.expected.every((t) => this.streams.has(t))) this.opened(true);
        return;
      }
      case FRAME.SYN_REPLY:
      case FRAME.HEADERS:
        // their header blocks still go through the shared decompression context, or the next block cannot be read
        await this.codec.decode(frame.payload.subarray(4));
        return;
      case FRAME.PING:
        this.send(async () => controlFrame(FRAME.PING, 0, frame.payload));
        return;
      case FRAME.GOAWAY:
        this.gone = true;
        this.socket.end();
        return;
      default:
        return; // RST_STREAM, SETTINGS, WINDOW_UPDATE: nothing to do for a session that only answers
    }
  }

  /** The client's bytes on its stdin stream go to the command (its FIN ends the input), on its resize stream resize it. */
  private takeData(streamId: number, payload: Buffer, fin: boolean): void {
    // the client may send no more than the window: what is read is given back, or a long input stalls at 64 KiB
    if (payload.length && !fin) this.send(async () => controlFrame(FRAME.WINDOW_UPDATE, 0, words(streamId, payload.length)));
    if (streamId === this.streams.get('stdin')) {
      this.feed.write(payload);
      if (fin) this.feed.end();
    } else if (streamId === this.streams.get('resize')) this.feed.resizeBytes(payload);
  }

  /** Queues a frame; frames leave in the order queued (SYN_REPLY's header block is compressed on the way). */
  private send(build: () => Promise<Buffer>): void {
    this.outgoing = this.outgoing.then(async () => {
      const bytes = await build();
      if (!this.gone && !this.socket.destroyed) this.socket.write(bytes);
    }).catch(() => this.cut());
  }

  /** Data on a stream, in pieces; with `fin` (the default) the last one closes the server's half of it. */
  private sendData(type: string, data: Buffer, fin = true): void {
    const id = this.streams.get(type);
    if (id === undefined || this.gone) return;
    for (let at = 0; at < data.length || at === 0; at += DATA_CHUNK) {
      const piece = data.subarray(at, at + DATA_CHUNK);
      const last = at + DATA_CHUNK >= data.length;
      if (piece.length || (last && fin)) this.send(async () => dataFrame(id, last && fin ? FLAG_FIN : 0, piece));
      if (last) break;
    }
  }
}
