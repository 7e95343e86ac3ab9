/**
 * Wall time of `ocp-e2e run` refusing what it cannot use, from start to exit, for the three cases of issue 16's
 * acceptance: `--to-image not@@valid`, `--to-image` of an image that is no release payload, and a bare Kubernetes API
 * (`ocp-e2e apiserver`, no ClusterVersion). Each case runs ROUNDS times (default 3); prints min / median / max, and
 * the start-up of the command alone for scale.
 *   node --import tsx bench/suite/preflight.ts [ROUNDS]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestRegistry } from '../../test/lib/oci/support/fixtures.js';
import { MockCluster } from '../../test/helpers/fixture.js';
import { ocpE2e, ROOT } from '../../test/support/cli.js';
import { pushRawImage } from '../../test/bin/support/raw-image.js';

const rounds = Number(process.argv[2] ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-bench-preflight-'));
const registry = await startTestRegistry();
const mock = await MockCluster.start();
await mock.seedSettledCluster();
await pushRawImage(registry.address, 'library/plain', '1', { 'etc/hello': 'not a release\n' });
const bareKubeconfig = join(dir, 'bare.kubeconfig');
const bare: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bin/ocp-e2e.ts'), 'apiserver', '--listen', '127.0.0.1:0', '--kubeconfig-out', bareKubeconfig], {
  cwd: ROOT,
  stdio: ['ignore', 'pipe', 'inherit'],
});
await new Promise<void>((resolve) => {
  let out = '';
  bare.stdout!.on('data', (d) => {
    out += d;
    if (/kubeconfig: /.test(out)) resolve();
  });
});

const cases: Array<[string, string[]]> = [
  ['--to-image not@@valid', ['run', '--to-image', 'not@@valid']],
  ['--to-image of a non-release image', ['run', '--target', 'cluster', '--kubeconfig', mock.kubeconfigPath, '--to-image', `${registry.address}/library/plain:1`]],
  ['bare Kubernetes API', ['run', '--target', 'cluster', '--kubeconfig', bareKubeconfig]],
];
const seconds = (ms: number) => (ms / 1000).toFixed(1);
try {
  for (const [what, args] of cases) {
    const walls: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const r = await ocpE2e(args, { timeoutMs: 60_000 });
      if (r.exitCode !== 2) throw new Error(`${what}: exit ${r.exitCode}\n${r.output}`);
      walls.push(r.wallMs);
    }
    walls.sort((a, b) => a - b);
    console.log(`${what}: exit 2; wall min ${seconds(walls[0]!)} s, median ${seconds(walls[Math.floor(walls.length / 2)]!)} s, max ${seconds(walls.at(-1)!)} s (${rounds} runs)`);
  }
  const plain = await ocpE2e(['--version'], { timeoutMs: 60_000 });
  console.log(`for scale, \`ocp-e2e --version\` alone: ${seconds(plain.wallMs)} s`);
} finally {
  bare.kill('SIGTERM');
  await Promise.allSettled([registry.dispose(), mock.stop()]);
  rmSync(dir, { recursive: true, force: true });
}
