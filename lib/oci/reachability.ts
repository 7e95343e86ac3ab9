// Which registries this machine can reach. Normally all of them; with OCP_E2E_LOOPBACK_ONLY=1 only those on loopback,
// which is how the reference's `--disconnected` gives the suite's spec processes a bastion without a route to quay.io:
// the refusal is modelled here, before any packet, so a test of a disconnected run never sends traffic off the machine.
import { isLoopbackRegistry } from './image-ref.js';

export const LOOPBACK_ONLY_ENV = 'OCP_E2E_LOOPBACK_ONLY';

/** Why `registry` cannot be reached from here, in the words of a DNS failure; undefined when it can be tried. */
export function unreachableFromHere(registry: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env[LOOPBACK_ONLY_ENV] !== '1' || isLoopbackRegistry(registry)) return undefined;
  return `dial tcp: lookup ${registry.replace(/:\d+$/, '')}: no such host (this machine reaches loopback registries only: ${LOOPBACK_ONLY_ENV}=1)`;
}
