/**
 * A small seeded pseudo-random generator (mulberry32). The reference cluster draws every duration from it so that
 * the same seed gives the same sequence of durations, and therefore the same order of condition transitions.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max] (both inclusive). */
  int(min: number, max: number): number;
  /** Uniform float in [min, max). */
  between(min: number, max: number): number;
}

export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    between: (min, max) => min + next() * (max - min),
  };
}

/** A stable 32-bit hash of a string (FNV-1a), used to give each node its own stream derived from the cluster seed. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A generator dedicated to one subject (a node, an update attempt), independent of the order subjects are served. */
export function rngFor(seed: number, ...subject: string[]): Rng {
  return createRng((seed ^ hashString(subject.join('/'))) >>> 0);
}
