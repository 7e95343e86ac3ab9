/**
 * How the tests start the `ocp-e2e` command: the way bin/ocp-e2e starts it for a user, the compiled tree of
 * scripts/build.sh (`npm test` builds it before the first test; a test file run on its own builds it here, once per
 * process, when the sources changed). Starting the TypeScript sources through tsx would cost each CLI and each of its
 * spec processes about two seconds of CPU, and would test a form users do not run. OCP_E2E_TSX=1 takes the sources,
 * as it does for bin/ocp-e2e.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let tree: string | undefined;

/** node's arguments before the command's own: the compiled entry point, or tsx and the TypeScript one. */
export function ocpE2eEntry(): string[] {
  if (process.env.OCP_E2E_TSX === '1') return ['--import', 'tsx', join(ROOT, 'bin', 'ocp-e2e.ts')];
  if (!tree) {
    const printed = execFileSync('bash', [join(ROOT, 'scripts', 'build.sh')], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    tree = printed.trim().split('\n').at(-1);
    if (!tree) throw new Error('scripts/build.sh printed no tree: cannot start the compiled ocp-e2e');
  }
  return [join(tree, 'bin', 'ocp-e2e.js')];
}
