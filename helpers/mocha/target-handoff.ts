/**
 * The spec process's half of the target hand-off. On the reference, a spec process is started while its cluster
 * is still starting, so loading the spec files, the helpers and their libraries (about a second of CPU) overlaps
 * the cluster's start rather than following it. Such a process is told so by TARGET_HANDOFF_ENV; before the first
 * test, mocha's global setup waits here for one line on stdin, a JSON object of the target's environment
 * (helpers/target.ts targetEnvironment), and puts it into process.env, where every helper reads the target from.
 * Nothing reads the target while the files load (conformance.ts reads it in the before-all hook), so a test sees
 * exactly what it would have seen had the process been started with that environment.
 *
 * Loaded with mocha's --require by bin/run/mocha.ts; without TARGET_HANDOFF_ENV it does nothing.
 */
import { createInterface } from 'node:readline';

export const TARGET_HANDOFF_ENV = 'OCP_E2E_TARGET_HANDOFF';

export async function mochaGlobalSetup(): Promise<void> {
  if (process.env[TARGET_HANDOFF_ENV] !== 'stdin') return;
  const line = await firstLine();
  if (line === undefined) throw new Error('the run closed this spec process\'s stdin before handing over its target (its cluster did not start)');
  const env = JSON.parse(line) as Record<string, string>;
  Object.assign(process.env, env);
  delete process.env[TARGET_HANDOFF_ENV];
}

function firstLine(): Promise<string | undefined> {
  return new Promise((resolve) => {
    const lines = createInterface({ input: process.stdin });
    let got: string | undefined;
    lines.once('line', (line) => {
      got = line;
      lines.close();
    });
    lines.once('close', () => {
      // The rest of stdin is not ours: let the process end without waiting on it.
      process.stdin.unref?.();
      resolve(got);
    });
  });
}
