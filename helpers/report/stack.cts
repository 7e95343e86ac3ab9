/**
 * Stacks as a reader wants them: the frames of this project only. Node's internals, the event loop and the libraries
 * under node_modules say nothing about which spec line or helper failed, and bury the frames that do.
 */

/** A stack frame line points into the project when its location is a relative or absolute path outside node_modules. */
function isProjectFrame(line: string): boolean {
  if (!/^\s+at /.test(line)) return false;
  if (/\(node:|\bat node:|node_modules\/|<anonymous>\)?$|\(native\)/.test(line)) return false;
  return /\.[cm]?[jt]sx?:\d+:\d+\)?\s*$/.test(line);
}

/** The project's frames of a stack (message lines dropped), as `    at …` lines; empty when none is the project's. */
export function projectFrames(stack: string | undefined): string[] {
  return (stack ?? '').split('\n').filter(isProjectFrame).map((l) => `    ${l.trim()}`);
}

/** A stack's frames, trimmed to the project's; falls back to the first few frames when none is the project's. */
export function trimStack(stack: string | undefined, fallbackFrames = 3): string {
  const own = projectFrames(stack);
  if (own.length) return own.join('\n');
  return (stack ?? '')
    .split('\n')
    .filter((l) => /^\s+at /.test(l))
    .slice(0, fallbackFrames)
    .map((l) => `    ${l.trim()}`)
    .join('\n');
}
