/** What both targets share: the part of the target config fixed by the options, the engine check, the spec budget. */
import type { TargetConfig } from '../../../helpers/target.js';
import { connectEngine, identifyEngine } from '../../../lib/oci/engine.js';
import { UsageError } from '../usage-error.js';

/** The target config without where the cluster is (each target adds its kind and kubeconfig). */
export type RunConfig = Omit<TargetConfig, 'kind' | 'kubeconfigPath'>;

/** Layered images are built and pushed by the engine: without one, no disruptive spec can run. */
export async function requireEngine(): Promise<void> {
  let engine;
  try {
    engine = await connectEngine();
  } catch (error) {
    throw new UsageError(`${(error as Error).message}`);
  }
  const id = await identifyEngine(engine);
  console.log(`engine: ${id.name}${id.address ? ` at ${id.address}` : ''} (builds and pushes the layered images)`);
}

/** A spec's budget: 4 hours of cluster time, at least a minute of wall time. */
export function specTimeoutMs(timeFactor: number): number {
  return Math.max(60_000, Math.ceil((4 * 3600_000) / timeFactor));
}
