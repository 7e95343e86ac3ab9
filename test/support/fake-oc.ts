// A stand-in `oc` for unit tests: a shell script in `dir` that appends its arguments to `dir/calls`, answers
// `oc version --client` like oc 4.12, then the test's own `case` arms (shell), and fails on anything else.
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';

export async function writeFakeOc(dir: string, caseArms: string): Promise<void> {
  const file = path.join(dir, 'oc');
  await writeFile(
    file,
    `#!/bin/sh
echo "$*" >> "${dir}/calls"
case "$*" in
  "version --client") echo "Client Version: 4.12.0"; exit 0 ;;
${caseArms}
esac
echo "error: unexpected $*" >&2; exit 2
`,
  );
  await chmod(file, 0o755);
}
