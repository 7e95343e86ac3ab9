/**
 * The part of the `ws` package (8.x, installed with @kubernetes/client-node) that the kubelet stand-in's exec server
 * uses. The project has no @types/ws (adding it would mean a download); these are its signatures, as ws documents them.
 */
declare module 'ws' {
  import type { IncomingMessage } from 'node:http';
  import type { Duplex } from 'node:stream';

  export class WebSocket {
    static readonly OPEN: number;
    readonly readyState: number;
    readonly protocol: string;
    send(data: Buffer, options?: { binary?: boolean }, cb?: (error?: Error) => void): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
    on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): this;
    on(event: 'close', listener: (code: number, reason: Buffer) => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
  }

  export interface ServerOptions {
    noServer?: boolean;
    handleProtocols?: (protocols: Set<string>, request: IncomingMessage) => string | false;
    perMessageDeflate?: boolean;
    maxPayload?: number;
  }

  export class WebSocketServer {
    constructor(options: ServerOptions);
    handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, callback: (ws: WebSocket, request: IncomingMessage) => void): void;
    close(cb?: (error?: Error) => void): void;
  }
}
