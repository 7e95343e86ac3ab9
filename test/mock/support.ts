/** Shared set-up for the mock API server's tests: a server with the project's CRDs and a kubectl bound to it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { startApiServer, type ApiServerOptions, type RunningApiServer } from '../../mock/index.js';
import { openShiftCrds } from '../../reference/crds/index.js';

export interface TestServer {
  server: RunningApiServer;
  kubeconfig: string;
  dir: string;
  /** Runs kubectl against the server; resolves with the result even on a non-zero exit. */
  kubectl(args: string[], input?: string): Promise<{ stdout: string; stderr: string; exitCode: number }>;
  /** Like kubectl() but throws with kubectl's stderr when it fails. */
  kubectlOk(args: string[], input?: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startTestServer(opts: ApiServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mock-test-'));
  const server = await startApiServer({ crds: openShiftCrds(), ...opts });
  const kubeconfig = join(dir, 'kubeconfig');
  await server.writeKubeconfig(kubeconfig);
  const kubectl = async (args: string[], input?: string) => {
    const r = await execa('kubectl', args, {
      input, reject: false, timeout: 30_000,
      env: { KUBECONFIG: kubeconfig, HOME: dir, KUBECACHEDIR: join(dir, 'cache') },
    });
    return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1 };
  };
  return {
    server, kubeconfig, dir, kubectl,
    async kubectlOk(args, input) {
      const r = await kubectl(args, input);
      if (r.exitCode !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.exitCode}): ${r.stderr}`);
      return r.stdout;
    },
    async stop() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls until fn returns a truthy value, or fails with the last value seen. */
export async function eventually<T>(fn: () => T | Promise<T>, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last value: ${JSON.stringify(last)}`);
}

export const MC_WORKER = `kind: MachineConfig
apiVersion: machineconfiguration.openshift.io/v1
metadata:
  labels:
    machineconfiguration.openshift.io/role: "worker"
  name: "tc-54183-new-os-image-upgrade-worker"
spec:
  osImageURL: "quay.io/sregidor/sregidor-os:mco_layering"
`;
