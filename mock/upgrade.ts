/**
 * HTTP upgrade requests (WebSocket, SPDY: `pods/exec`) through the same pipeline as every other request. Node hands
 * an upgrade to the server's 'upgrade' event with the bare socket instead of to the request handler; here it goes to
 * the request handler anyway, with a response written on that socket, so that authentication, faults and routes apply
 * to it unchanged and a refusal is an ordinary Status answer. The one handler that takes the connection over
 * (`takeUpgrade`) owns the socket from then on; any other route answers as usual and the socket closes after it.
 */
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export interface UpgradedConnection {
  socket: Duplex;
  /** Bytes the client sent after its request head, already read off the socket. */
  head: Buffer;
}

const pending = new WeakMap<IncomingMessage, UpgradedConnection>();

/** The server's 'upgrade' listener: the request goes to `handler` with a response bound to the raw socket. */
export function upgradeListener(handler: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (req, socket, head) => {
    // the HTTP parser has let go of the socket: without a listener a peer's reset would be an uncaught error
    socket.on('error', () => socket.destroy());
    pending.set(req, { socket, head });
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.on('finish', () => {
      res.detachSocket(socket as Socket);
      socket.end();
    });
    handler(req, res);
  };
}

/** The raw connection of an upgrade request, once: the caller owns it and must not answer through `res`. */
export function takeUpgrade(req: IncomingMessage): UpgradedConnection | undefined {
  const conn = pending.get(req);
  pending.delete(req);
  return conn;
}
