/**
 * Telling a paced server when this client works and when it waits (mock/http/handlers/client-work.ts): while the
 * client works, one request to the server's client-work path stays open; while it waits on the cluster, none does.
 *
 * Why: a simulated cluster with a skipping clock may jump over idle time only while every client is waiting on it. A
 * client between two requests looks idle to the server, whether it is waiting for the cluster or building an image;
 * without this the cluster ran hours ahead of a suite busy on its own side, and every duration the suite reported
 * inherited those hours. A real cluster has no such path and is never asked (the reference advertises the path).
 *
 * The hold is best-effort: it never fails the client. A hold the server drops (an API server restart) is opened again
 * while the client still works; a failed open is retried after a short pause, its error kept for diagnosis.
 */
import { Agent, request, type RequestOptions } from 'node:https';
import { Agent as HttpAgent, request as plainRequest, type ClientRequest } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';

const RETRY_WALL_MS = 200;
/** How long `working()` waits for the server to confirm the hold before going on without it. */
const CONFIRM_WALL_MS = 2_000;

export class ClientWork {
  private current?: ClientRequest;
  /** Set while a hold is being opened: resolves when the server answered (or gave up). */
  private opening?: Promise<void>;
  private waits = 0;
  private active = false;
  private closed = false;
  private unsupported = false;
  private retry?: NodeJS.Timeout;
  /** The last failure to hold, for a wait that wants to say why the cluster ran ahead. */
  lastError?: string;

  private constructor(
    private readonly url: URL,
    private readonly options: RequestOptions,
    private readonly agent: Agent | HttpAgent,
  ) {}

  /** A client of `kubeConfig`'s server whose client-work path is `path` (as the reference advertises it). */
  static async forServer(kubeConfig: KubeConfig, path: string): Promise<ClientWork> {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster: set current-context');
    const url = new URL(path, cluster.server);
    const options: RequestOptions = { method: 'GET' };
    await kubeConfig.applyToHTTPSOptions(options);
    const agent = url.protocol === 'http:'
      ? new HttpAgent({ keepAlive: false })
      : new Agent({ ca: options.ca, cert: options.cert, key: options.key, pfx: options.pfx, passphrase: options.passphrase, rejectUnauthorized: options.rejectUnauthorized, servername: options.servername, keepAlive: false });
    return new ClientWork(url, options, agent);
  }

  /** True while the client says it works (outside every `waitingDuring`). */
  get holding(): boolean {
    return this.active && this.waits === 0 && !this.closed && !this.unsupported;
  }

  /** Runs `body` as the client's own work: the cluster's clock runs at its factor meanwhile, it does not skip. */
  async workingDuring<T>(body: () => Promise<T>): Promise<T> {
    const wasActive = this.active;
    this.active = true;
    await this.sync();
    try {
      return await body();
    } finally {
      this.active = wasActive;
      void this.sync();
    }
  }

  /** Runs `body` as a wait on the cluster: the cluster's clock may skip its idle time meanwhile. */
  async waitingDuring<T>(body: () => Promise<T>): Promise<T> {
    this.waits++;
    await this.sync();
    try {
      return await body();
    } finally {
      this.waits--;
      await this.sync();
    }
  }

  /** Ends any hold for good. */
  close(): void {
    this.closed = true;
    this.drop();
    this.agent.destroy();
  }

  /** Opens or closes the hold to match what the client says; resolves once an opened hold is confirmed. */
  private sync(): Promise<void> {
    if (!this.holding) {
      this.drop();
      return Promise.resolve();
    }
    if (this.current) return this.opening ?? Promise.resolve();
    return this.open();
  }

  private drop(): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    const req = this.current;
    this.current = undefined;
    this.opening = undefined;
    req?.destroy();
  }

  private open(): Promise<void> {
    const send = this.url.protocol === 'http:' ? plainRequest : request;
    let confirm!: () => void;
    const confirmed = new Promise<void>((resolve) => (confirm = resolve));
    const giveUp = setTimeout(confirm, CONFIRM_WALL_MS);
    const req = send(this.url, { ...this.options, agent: this.agent }, (res) => {
      clearTimeout(giveUp);
      if ((res.statusCode ?? 0) !== 200) {
        // a server without the path (or refusing it) will not change its mind: stop asking
        this.lastError = `GET ${this.url.pathname} answered ${res.statusCode}`;
        this.unsupported = true;
      }
      res.resume();
      confirm();
      res.once('close', () => this.lost(req));
    });
    req.once('error', (error) => {
      clearTimeout(giveUp);
      this.lastError = error.message;
      confirm();
      this.lost(req);
    });
    // an open hold must not keep a finished process alive
    req.once('socket', (socket) => socket.unref());
    req.end();
    this.current = req;
    this.opening = confirmed;
    return confirmed;
  }

  /** A hold ended without being dropped by us: open another while the client still works. */
  private lost(req: ClientRequest): void {
    if (this.current !== req) return;
    this.current = undefined;
    this.opening = undefined;
    if (!this.holding || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.sync();
    }, RETRY_WALL_MS);
    this.retry.unref();
  }
}
