/**
 * A real terminal for tests of interactive commands: a detached tmux session of a given size running one command
 * line, typed into with send-keys and read with capture-pane, as a person at a terminal would see it. tmux is
 * required (`.ci/run` installs it); a machine without it fails the test saying so.
 */
import { execa } from 'execa';
import { randomBytes } from 'node:crypto';

export interface Terminal {
  /** What the screen shows now, scrollback included, lines joined with '\n'. */
  screen(): Promise<string>;
  /** Types `text` and presses Enter. */
  typeLine(text: string): Promise<void>;
  /** Waits until the screen matches `pattern` (after `since`, the screen length seen before, when given); fails with the screen. */
  waitFor(pattern: RegExp, timeoutMs: number, since?: number): Promise<string>;
  /** Resizes the window, as a person dragging it does (the program gets SIGWINCH). */
  resize(size: { cols: number; rows: number }): Promise<void>;
  /** Ends the session and whatever still runs in it. */
  close(): Promise<void>;
}

async function tmux(args: string[]): Promise<string> {
  try {
    return (await execa('tmux', args)).stdout;
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') {
      throw new Error('tmux is missing: the interactive tests type into a real terminal through tmux (apt-get install tmux; .ci/run installs it)');
    }
    throw error;
  }
}

/** Starts `commandLine` (run by bash) in a new terminal of `cols` x `rows` with `env` added. */
export async function openTerminal(commandLine: string, env: Record<string, string>, size = { cols: 120, rows: 40 }): Promise<Terminal> {
  const name = `ocp-e2e-test-${randomBytes(4).toString('hex')}`;
  const exports = Object.entries(env).map(([k, v]) => `export ${k}=${JSON.stringify(v)}`).join('; ');
  // the pane stays after the command ends (remain-on-exit), so its last words can still be read
  await tmux(['new-session', '-d', '-s', name, '-x', String(size.cols), '-y', String(size.rows), 'bash', '--norc', '--noprofile', '-c', `${exports}; ${commandLine}`]);
  await tmux(['set-option', '-t', name, 'remain-on-exit', 'on']);
  const screen = async (): Promise<string> => (await tmux(['capture-pane', '-p', '-J', '-S', '-2000', '-t', name])).replace(/\s+$/, '');
  return {
    screen,
    typeLine: async (text) => {
      await tmux(['send-keys', '-t', name, '-l', text]);
      await tmux(['send-keys', '-t', name, 'Enter']);
    },
    waitFor: async (pattern, timeoutMs, since = 0) => {
      const deadline = Date.now() + timeoutMs;
      let last = '';
      while (Date.now() < deadline) {
        last = await screen();
        if (pattern.test(last.slice(since))) return last;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      throw new Error(`the terminal did not show ${pattern} within ${timeoutMs / 1000} s; it shows:\n${last}`);
    },
    resize: async ({ cols, rows }) => {
      await tmux(['resize-window', '-t', name, '-x', String(cols), '-y', String(rows)]);
    },
    close: async () => {
      await execa('tmux', ['kill-session', '-t', name], { reject: false });
    },
  };
}
