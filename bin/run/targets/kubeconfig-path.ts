/**
 * Which kubeconfig `--target cluster` uses: --kubeconfig, else the first path of $KUBECONFIG, else ~/.kube/config, and
 * when there is none of those but the run is in a pod (a Job of deploy/), the pod's in-cluster config written as a
 * kubeconfig (lib/kube/in-cluster.ts), as oc and kubectl fall back to it. The suite hands a path to its mocha process
 * and to oc, so the in-cluster config becomes a file (in the temporary folder, which a read-only pod mounts writable).
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inClusterKubeconfig, type InClusterSource } from '../../../lib/kube/in-cluster.js';

export interface KubeconfigChoice {
  path: string;
  /** Where it came from, for the run's first lines. */
  source: 'option' | 'KUBECONFIG' | 'home' | 'in-cluster';
}

export function chooseKubeconfig(given: string | undefined, source: InClusterSource = { env: process.env }, home = homedir()): KubeconfigChoice {
  if (given) return { path: resolve(given), source: 'option' };
  const fromEnv = source.env.KUBECONFIG?.split(':')[0];
  if (fromEnv) return { path: resolve(fromEnv), source: 'KUBECONFIG' };
  const homeConfig = join(home, '.kube', 'config');
  if (existsSync(homeConfig)) return { path: homeConfig, source: 'home' };
  const inCluster = inClusterKubeconfig(source);
  if (!inCluster) return { path: homeConfig, source: 'home' }; // missing: the preflight says so (exit 3)
  const file = join(mkdtempSync(join(tmpdir(), 'ocp-e2e-in-cluster-')), 'kubeconfig');
  writeFileSync(file, inCluster, { mode: 0o600 });
  return { path: file, source: 'in-cluster' };
}
