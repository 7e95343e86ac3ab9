/** The listening socket: HTTP or HTTPS on one address, with connections tracked so that close() is immediate. */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { upgradeListener } from './upgrade.js';

export interface Listening {
  /** host:port as it goes into a URL (IPv6 in brackets). */
  address: string;
  close(): Promise<void>;
}

export async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void,
  where: { host: string; port: number; certs?: { certPem: string; keyPem: string } }): Promise<Listening> {
  const server: Server = where.certs
    ? createHttpsServer({ cert: where.certs.certPem, key: where.certs.keyPem }, handler)
    : createHttpServer(handler);
  // Clients keep connections alive; without tracking them close() would wait for their idle timeout.
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  server.on('upgrade', upgradeListener(handler)); // pods/exec over WebSocket: see upgrade.ts
  server.keepAliveTimeout = 30_000;
  server.requestTimeout = 0; // watches are long-lived

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(where.port, where.host, () => { server.off('error', reject); resolve(); });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    address: `${where.host.includes(':') ? `[${where.host}]` : where.host}:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    }),
  };
}
