/**
 * What a client sends towards a command, held until the command runs: a session reads its client's stdin and resize
 * messages from the moment it is open, and the command may start (exec) or already be running (attach) later or
 * sooner than that. Input and the end of input are passed on in order; of the sizes only the newest counts.
 */
import type { CommandControl } from './exec-command.js';
import type { TerminalSize } from '../node-fs/node-command.js';

export class InputFeed {
  private control?: CommandControl;
  private pending: Buffer[] = [];
  private ended = false;
  private size?: TerminalSize;
  /** An unfinished resize message, waiting for the rest of its bytes. */
  private resizeRest = '';

  /** Connects the feed to the running command and hands it what came before. */
  connect(control: CommandControl): void {
    this.control = control;
    for (const chunk of this.pending) control.input?.write(chunk);
    this.pending = [];
    if (this.ended) control.input?.end();
    if (this.size) control.resize(this.size);
  }

  write(chunk: Buffer): void {
    if (this.ended || !chunk.length) return;
    if (this.control) this.control.input?.write(chunk);
    else this.pending.push(chunk);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.control?.input?.end();
  }

  resize(size: TerminalSize): void {
    this.size = size;
    this.control?.resize(size);
  }

  /** Bytes of a resize channel or stream, as they come: each whole message resizes the terminal. */
  resizeBytes(chunk: Buffer): void {
    const parsed = parseResizes(this.resizeRest + chunk.toString('utf8'));
    this.resizeRest = parsed.rest;
    for (const size of parsed.sizes) this.resize(size);
  }
}

/**
 * The terminal sizes in a resize stream's bytes: one JSON object per change (client-go `{"Width":W,"Height":H}`,
 * client-node `{"height":H,"width":W}`), back to back, which may arrive split or joined; `rest` is an unfinished
 * object to prepend to the next bytes.
 */
export function parseResizes(text: string): { sizes: TerminalSize[]; rest: string } {
  const sizes: TerminalSize[] = [];
  let at = 0;
  for (;;) {
    const open = text.indexOf('{', at);
    if (open < 0) return { sizes, rest: '' };
    const close = text.indexOf('}', open);
    if (close < 0) return { sizes, rest: text.slice(open) };
    try {
      // Go's decoder matches field names in any case: client-node sends {"height":H,"width":W}
      const parsed = Object.fromEntries(Object.entries(JSON.parse(text.slice(open, close + 1)) as object).map(([k, v]) => [k.toLowerCase(), v]));
      const cols = Number(parsed.width);
      const rows = Number(parsed.height);
      if (Number.isInteger(cols) && Number.isInteger(rows) && cols > 0 && rows > 0) sizes.push({ cols, rows });
    } catch {
      // not a size: the kubelet logs and drops such a message too
    }
    at = close + 1;
  }
}
