/**
 * Reads a kubeconfig and says plainly what is wrong with one that cannot be used: missing, unreadable, not YAML, or
 * YAML that is no kubeconfig (no current context, no cluster, no server). client-node alone would report a file that
 * is not YAML as a parser error when the first request is made, which reads like a network problem.
 */
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { unreadableReason } from '../files/unreadable.js';
import { PooledKubeConfig } from './pooled-kubeconfig.js';
import { parse } from 'yaml';

export type KubeconfigProblem = 'missing' | 'unreadable' | 'not-yaml' | 'not-a-kubeconfig';

export class KubeconfigError extends Error {
  constructor(
    readonly path: string,
    readonly problem: KubeconfigProblem,
    detail: string,
  ) {
    super(`cannot read the kubeconfig ${path}: ${detail}`);
    this.name = 'KubeconfigError';
  }
}

export function loadKubeConfig(path: string): KubeConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new KubeconfigError(path, 'missing', 'no such file: pass --kubeconfig FILE or set KUBECONFIG');
    throw new KubeconfigError(path, 'unreadable', unreadableReason(path, error));
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    throw new KubeconfigError(path, 'not-yaml', `it is not YAML (${(error as Error).message.split('\n')[0]})`);
  }
  const config = doc as { clusters?: unknown; contexts?: unknown } | null;
  if (!config || typeof config !== 'object' || Array.isArray(config) || (!config.clusters && !config.contexts)) {
    throw new KubeconfigError(path, 'not-a-kubeconfig', 'it is YAML but no kubeconfig (no clusters, contexts or users)');
  }
  const kc = new PooledKubeConfig();
  try {
    kc.loadFromString(text);
  } catch (error) {
    throw new KubeconfigError(path, 'not-a-kubeconfig', (error as Error).message.split('\n')[0]!);
  }
  const context = kc.getCurrentContext();
  if (!context || !kc.getContextObject(context)) {
    throw new KubeconfigError(path, 'not-a-kubeconfig', `its current-context ${context ? `"${context}" is not among its contexts` : 'is not set'} (kubectl config use-context NAME)`);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) throw new KubeconfigError(path, 'not-a-kubeconfig', `context "${context}" names no cluster with a server URL`);
  return kc;
}
