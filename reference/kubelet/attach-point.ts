/**
 * A running container that clients can attach to (`kubectl attach`, `oc debug`'s interactive session): the container's
 * process was started with an input (the pod's `stdin: true`) and maybe a terminal (`tty: true`), and keeps running
 * whether anyone is attached or not. Every attached client gets the output from the moment it attached (nothing is
 * replayed, as with a real runtime: the container log has it all); each client's input goes to the one process. With
 * `stdinOnce` the container's input ends when the first client that attached with stdin lets go of it (its stdin ends
 * or it goes away), as the runtime does, so a debug shell ends when its user's session does.
 */
import type { CommandControl, ExecIo } from './exec-command.js';
import { InputFeed } from './input-feed.js';

export class AttachPoint {
  private readonly clients = new Set<ExecIo>();
  /** The container's own input: held until its process runs, then passed on. */
  private readonly input = new InputFeed();
  private inputTaken = false;
  private finished = false;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly stdinOnce: boolean) {}

  /** What the container's process writes to and is started with (for runInContainer). */
  containerIo(log: { stdout(chunk: Buffer): void; stderr(chunk: Buffer): void }): ExecIo {
    return {
      stdout: (chunk) => {
        log.stdout(chunk);
        for (const client of this.clients) client.stdout(chunk);
      },
      stderr: (chunk) => {
        log.stderr(chunk);
        for (const client of this.clients) client.stderr(chunk);
      },
      started: (control) => this.input.connect(control),
    };
  }

  /** The container's process has ended: every attached session ends with it. */
  finish(): void {
    this.finished = true;
    this.input.end();
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  /**
   * Attaches `client` until the container ends (resolves 0: an attach reports success once the container's streams
   * close) or `signal` aborts (the client went away). `withInput`: the client sends stdin.
   */
  async attach(client: ExecIo, signal: AbortSignal, withInput: boolean): Promise<number> {
    if (this.finished) return 0;
    const own = withInput && !(this.stdinOnce && this.inputTaken);
    if (own) this.inputTaken = true;
    const letGo = (): void => {
      if (own && this.stdinOnce) this.input.end();
    };
    const control: CommandControl = {
      input: own ? { write: (chunk) => this.input.write(chunk), end: letGo } : undefined,
      resize: (size) => this.input.resize(size),
    };
    this.clients.add(client);
    client.started?.(control);
    try {
      await new Promise<void>((resolve) => {
        const wake = (): void => resolve();
        this.waiters.add(wake);
        signal.addEventListener('abort', () => {
          this.waiters.delete(wake);
          resolve();
        }, { once: true });
      });
    } finally {
      this.clients.delete(client);
      if (signal.aborted) letGo();
    }
    return 0;
  }
}
