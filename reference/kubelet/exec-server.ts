/**
 * The kubelets' exec and attach endpoints: `GET|POST /exec/{namespace}/{pod}/{container}?command=…&stdin=…&stdout=…&stderr=…&tty=…`
 * and `/attach/…` (the same without a command: the session joins the process of a container started with stdin,
 * attach-point.ts), upgraded to a WebSocket (or SPDY), where the API server's `pods/exec` and `pods/attach` forward a client's upgrade
 * (mock/http/handlers/exec.ts). Over WebSocket it speaks the channel protocols of k8s.io/apimachinery's wsstream that kubectl 1.32 and client-node offer:
 * `v5.channel.k8s.io` (255 closes a stream), `v4.channel.k8s.io` (the exit status as a Status on channel 3) and the
 * original `channel.k8s.io` (an error text on channel 3). Each binary message is one channel byte and its data:
 * 0 stdin, 1 stdout, 2 stderr, 3 error, 4 resize. The command runs as exec-command.ts says; its output goes on
 * stdout and stderr, then the status, then the socket closes (code 1000), as the kubelet's streaming server does.
 * Refusals come before the upgrade, as the kubelet writes them (plain text): an unknown pod 404 `pod does not exist`,
 * a container not running 500 `container not found ("C")`. An upgrade to SPDY/3.1 (`oc` 4.12, client-go of its
 * age) is served by exec-spdy.ts with the same command and status; any other upgrade is refused with 400.
 * The command's output is sent as it comes; stdin is the command's input (v5's close of stream 0 ends it), and
 * `tty=true` runs it on a pseudo-terminal whose size follows the resize channel (stdout then carries everything, as a
 * terminal does). A client that goes away ends its session and kills the command with all it started.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { hostMountOf, runInContainer, type CommandControl, type ExecIo } from './exec-command.js';
import { InputFeed } from './input-feed.js';
import { DEFAULT_TERMINAL } from '../node-fs/node-command.js';
import { isSpdyUpgrade, negotiateSpdy, serveSpdyExec, SPDY_EXEC_PROTOCOLS } from './exec-spdy.js';
import { statusFor } from './exec-status.js';
import type { Kubelets } from './kubelet.js';

export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io', 'channel.k8s.io'] as const;

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;
/** v5.channel.k8s.io: a message on this channel closes the stream its one byte names. */
const CLOSE_STREAM = 255;

export interface ExecServer {
  close(): void;
}

/** Serves exec on `server`'s upgrade requests; close() ends every open session. */
export function attachExecServer(server: Server, kubelets: Kubelets): ExecServer {
  const sessions = new Set<WebSocket>();
  const spdySessions = new Set<{ close(): void }>();
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (offered) => EXEC_PROTOCOLS.find((p) => offered.has(p)) ?? false,
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const refusal = check(kubelets, req);
    if ('code' in refusal) return refuse(socket, refusal.code, refusal.message);
    if (refusal.spdyProtocol) {
      const spdy = serveSpdyExec(socket, head, refusal.spdyProtocol, { ...refusal, run: (io, signal) => run(refusal, kubelets, io, signal) });
      spdySessions.add(spdy);
      socket.once('close', () => spdySessions.delete(spdy));
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sessions.add(ws);
      ws.on('close', () => sessions.delete(ws));
      void session(ws, refusal, kubelets);
    });
  });
  return {
    close: () => {
      for (const ws of sessions) ws.terminate();
      for (const spdy of spdySessions) spdy.close();
      wss.close();
    },
  };
}

interface ExecRequest {
  /** exec runs a new command in the container; attach joins the process the container runs. */
  kind: 'exec' | 'attach';
  namespace: string;
  pod: string;
  container: string;
  argv: string[];
  node: string;
  hostMount?: string;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
  /** The stream protocol agreed on when the client asked for SPDY; WebSocket's is chosen in its handshake. */
  spdyProtocol?: string;
}

function check(kubelets: Kubelets, req: IncomingMessage): ExecRequest | { code: number; message: string } {
  const url = new URL(req.url ?? '/', 'http://kubelet');
  const m = /^\/(exec|attach)\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
  if (!m || (req.method !== 'GET' && req.method !== 'POST')) return { code: 404, message: '404 page not found' };
  const kind = m[1] as 'exec' | 'attach';
  const [namespace, podName, container] = m.slice(2).map(decodeURIComponent) as [string, string, string];
  const q = url.searchParams;
  const flag = (name: string): boolean => ['true', '1'].includes(q.get(name) ?? '');
  if (!flag('stdin') && !flag('stdout') && !flag('stderr')) return { code: 400, message: 'you must specify at least 1 of stdin, stdout, stderr' };
  const apiPod = kubelets.podFromApi(namespace, podName);
  const { pod } = kubelets.containerLog(namespace, podName, container);
  if (!apiPod || !pod) return { code: 404, message: 'pod does not exist' };
  const state = apiPod.status?.containerStatuses?.find((c) => c.name === container)?.state;
  if (!state?.running) return { code: 500, message: `container not found ("${container}")` };
  if (kind === 'attach' && !kubelets.attachPoint(namespace, podName, container)) {
    return { code: 400, message: `the reference's kubelet stand-in attaches only to containers started with stdin (oc debug, kubectl run -i); ${container} was not` };
  }
  let spdyProtocol: string | undefined;
  if (isSpdyUpgrade(req)) {
    const negotiated = negotiateSpdy(req);
    if ('code' in negotiated) return negotiated;
    spdyProtocol = negotiated.protocol;
  } else if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
    return { code: 400, message: `the reference's kubelet stand-in serves exec over WebSocket (${EXEC_PROTOCOLS.join(', ')}) and SPDY/3.1 (${SPDY_EXEC_PROTOCOLS.join(', ')}); ${req.headers.upgrade ?? 'a plain request'} is not served` };
  }
  return {
    kind, namespace, pod: podName, container,
    argv: kind === 'exec' ? q.getAll('command') : [], node: pod.node, hostMount: hostMountOf(apiPod, container),
    stdin: flag('stdin'), stdout: flag('stdout'), stderr: flag('stderr'), tty: flag('tty'), spdyProtocol,
  };
}

function refuse(socket: Duplex, code: number, message: string): void {
  const reason = { 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 500: 'Internal Server Error' }[code] ?? 'Error';
  const body = Buffer.from(message);
  socket.end(`HTTP/1.1 ${code} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${message}`);
}

async function session(ws: WebSocket, exec: ExecRequest, kubelets: Kubelets): Promise<void> {
  const gone = new AbortController();
  ws.on('close', () => gone.abort());
  ws.on('error', () => ws.terminate());
  const feed = new InputFeed();
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    // base64 subprotocols are not offered, so every message is binary: its first byte is the channel
    if (!isBinary || data.length === 0) return;
    const channel = data[0]!;
    const payload = data.subarray(1);
    if (channel === STDIN && exec.stdin) feed.write(payload);
    else if (channel === RESIZE && exec.tty) feed.resizeBytes(payload);
    else if (channel === CLOSE_STREAM && ws.protocol === 'v5.channel.k8s.io' && payload[0] === STDIN) feed.end();
  });
  const send = (channel: number, wanted: boolean) => (chunk: Buffer): void => {
    if (wanted && ws.readyState === WebSocket.OPEN) ws.send(frame(channel, chunk));
  };
  const io = { stdout: send(STDOUT, exec.stdout), stderr: send(STDERR, exec.stderr), started: (c: CommandControl) => feed.connect(c) };
  const exitCode = await run(exec, kubelets, io, gone.signal);
  if (gone.signal.aborted || ws.readyState !== WebSocket.OPEN) return;
  const status = statusFor(ws.protocol, exec.argv, exitCode);
  if (status) ws.send(frame(ERROR, Buffer.from(status)));
  // the close ends every stream: no v5 stream-close messages first (client-node 1.4 takes them for an unknown stream)
  ws.close(1000);
}

/** The command, run as exec-command.ts says; a failure of the stand-in itself is the command's 126. */
async function run(exec: ExecRequest, kubelets: Kubelets, io: ExecIo, signal: AbortSignal): Promise<number> {
  if (exec.kind === 'attach') {
    const point = kubelets.attachPoint(exec.namespace, exec.pod, exec.container);
    return point ? point.attach(io, signal, exec.stdin) : 0;
  }
  try {
    const streams = { stdin: exec.stdin, tty: exec.tty ? DEFAULT_TERMINAL : undefined };
    return await runInContainer(exec.argv, exec.hostMount, kubelets.nodeExec(exec.node), io, signal, streams);
  } catch (error) {
    io.stderr(Buffer.from(`${(error as Error).message}\n`));
    return 126;
  }
}

function frame(channel: number, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from([channel]), data] as unknown as Uint8Array[]);
}
