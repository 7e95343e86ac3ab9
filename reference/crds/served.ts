/**
 * Whether a release's API serves a kind: whether its CRD set (index.ts `crdSetOf`) defines it. Controllers that watch a
 * kind only some releases have (MachineOSConfig and MachineOSBuild from 4.18's set) ask before they start an
 * informer, which would fail on a resource the API server does not know.
 */
import { openShiftCrds } from './index.js';

interface CrdNames {
  spec?: { names?: { kind?: string } };
}

const answers = new Map<string, boolean>();

export function servesKind(version: string | undefined, kind: string): boolean {
  const key = `${version ?? ''}\u0000${kind}`;
  let served = answers.get(key);
  if (served === undefined) {
    served = (openShiftCrds(version) as CrdNames[]).some((crd) => crd.spec?.names?.kind === kind);
    answers.set(key, served);
  }
  return served;
}
