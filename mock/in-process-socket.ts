/**
 * Two connected in-memory streams that Node's HTTP client and server accept as sockets: what a client in the API
 * server's own process (the reference cluster's controllers, daemons and kubelets) connects through instead of TCP and
 * TLS. HTTP, the server's handlers, watches and faults stay exactly as they are; what goes is the per-connection
 * handshake, the encryption of every byte and the socket system calls, which for those clients were about a quarter of
 * the reference cluster's CPU (bench/RESULTS.md, issue 46).
 *
 * Bytes written on one end are read on the other in a later tick, never inside the writer's call, as over a real
 * socket: the server must not run a handler in the middle of the client's write. Ending one end ends the other's
 * reading; destroying one destroys both, as a reset connection would.
 */
import { Duplex } from 'node:stream';

/** The address both ends report (loopback, where the same client would connect over TCP). */
const LOOPBACK = '127.0.0.1';

export class InProcessSocket extends Duplex {
  private peer?: InProcessSocket;
  /** Net.Socket's fields that Node's HTTP code or a handler reads. */
  readonly remoteAddress = LOOPBACK;
  readonly remotePort = 0;
  readonly localAddress = LOOPBACK;
  readonly localPort = 0;
  readonly remoteFamily = 'IPv4';
  readonly encrypted = false;
  connecting = false;

  static pair(): [client: InProcessSocket, server: InProcessSocket] {
    const client = new InProcessSocket();
    const server = new InProcessSocket();
    client.peer = server;
    server.peer = client;
    return [client, server];
  }

  /** A client end whose connection is refused at once, as connecting to a port nobody listens on. */
  static refused(address: string): InProcessSocket {
    const socket = new InProcessSocket();
    process.nextTick(() => socket.destroy(Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED', syscall: 'connect', address })));
    return socket;
  }

  override _read(): void {
    // data arrives by the peer's writes; nothing to pull
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    const peer = this.peer;
    if (!peer || peer.destroyed) {
      done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      return;
    }
    process.nextTick(() => {
      if (!peer.destroyed) peer.push(chunk);
      done();
    });
  }

  override _final(done: (error?: Error | null) => void): void {
    const peer = this.peer;
    process.nextTick(() => {
      if (peer && !peer.destroyed) peer.push(null);
      done();
    });
  }

  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    const peer = this.peer;
    this.peer = undefined;
    if (peer && !peer.destroyed) process.nextTick(() => peer.destroy());
    done(error);
  }

  // What Node's HTTP agent and server call on a net.Socket. Timeouts and keep-alive probes guard against a lost peer,
  // which cannot happen in one process; an idle connection lives until one end closes it or the server stops.
  setKeepAlive(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setTimeout(_ms: number, callback?: () => void): this {
    if (callback) this.once('timeout', callback);
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  address(): { address: string; family: string; port: number } {
    return { address: LOOPBACK, family: 'IPv4', port: 0 };
  }
}
