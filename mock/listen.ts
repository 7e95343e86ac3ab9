/**
 * The listening socket: HTTP or HTTPS on one address, with connections tracked so that close() is immediate; and the
 * same server for clients in this process, over in-memory connections (in-process-socket.ts).
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { InProcessSocket } from './in-process-socket.js';
import { upgradeListener } from './upgrade.js';

export interface Listening {
  /** host:port as it goes into a URL (IPv6 in brackets). */
  address: string;
  /**
   * A new connection from this process, served as the listening socket's are but without TCP or TLS; refused once
   * the server is closed.
   */
  connect(): Duplex;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** What both servers do with their connections: track them (close() ends them), answer garbage, upgrade, no timeouts. */
function configure(server: Server, handler: Handler, sockets: Set<Duplex>): void {
  server.on('connection', (s: Duplex) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  server.on('upgrade', upgradeListener(handler)); // pods/exec over WebSocket: see upgrade.ts
  server.keepAliveTimeout = 30_000;
  server.requestTimeout = 0; // watches are long-lived
}

export async function listen(handler: Handler,
  where: { host: string; port: number; certs?: { certPem: string; keyPem: string } }): Promise<Listening> {
  const server: Server = where.certs
    ? createHttpsServer({ cert: where.certs.certPem, key: where.certs.keyPem }, handler)
    : createHttpServer(handler);
  // Clients keep connections alive; without tracking them close() would wait for their idle timeout.
  const sockets = new Set<Duplex>();
  configure(server, handler, sockets);
  // Never listens: in-process connections are handed to it (the TLS server would expect a TLS handshake on them).
  const inProcess = createHttpServer(handler);
  configure(inProcess, handler, sockets);
  let closing = false;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(where.port, where.host, () => { server.off('error', reject); resolve(); });
  });
  const port = (server.address() as AddressInfo).port;
  const address = `${where.host.includes(':') ? `[${where.host}]` : where.host}:${port}`;
  return {
    address,
    connect: () => {
      if (closing) return InProcessSocket.refused(address);
      const [client, serverSide] = InProcessSocket.pair();
      inProcess.emit('connection', serverSide);
      return client;
    },
    close: () => new Promise<void>((resolve) => {
      closing = true;
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    }),
  };
}
