/**
 * How pods get their names: the suffixes Kubernetes generates (`<replicaset>-<5 letters>`, `<deployment>-<10 letter
 * pod-template-hash>`) are drawn from one alphabet without vowels or look-alike digits. Every pod name the reference
 * makes up or hashes is made here.
 */
import { normalize } from '../equality.js';
import type { Rng } from '../rng.js';

/** The alphabet of generated name suffixes (apimachinery's rand.String: no vowels, no 0, 1, 3). */
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** A stable 32-bit number for a name (the string hash h·31 + c): seeds per component, made-up suffixes per node. */
export function nameHash(name: string): number {
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h;
}

/** Five letters that always come out the same for one name: a node's daemon pod when no Pod object names it. */
export function stableSuffix(name: string): string {
  const h = nameHash(name);
  return Array.from({ length: 5 }, (_, i) => ALPHABET[(h >>> (i * 5)) % ALPHABET.length]).join('');
}

/** `length` letters drawn from `rng`: a made-up pod's ReplicaSet hash and suffix. */
export function randomSuffix(rng: Rng, length: number): string {
  return Array.from({ length }, () => ALPHABET[Math.floor(rng.next() * ALPHABET.length)]).join('');
}

/** The pod-template-hash of a template: FNV-1a of its normalized JSON, ten letters of the alphabet. */
export function templateHash(template: unknown): string {
  let h = 0x811c9dc5;
  for (const ch of Buffer.from(JSON.stringify(normalize(template) ?? {}))) {
    h ^= ch;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  let out = '';
  for (let n = h; out.length < 10; n = Math.floor(n / ALPHABET.length) || h + out.length) out += ALPHABET[n % ALPHABET.length];
  return out;
}
