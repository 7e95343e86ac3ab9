/**
 * Wall time and cluster time of a recording, mapped onto each other. At a fixed clock factor the two are proportional;
 * on a reference whose clock jumps over idle time they are not, so the map is drawn through the moments the recording
 * holds on both clocks (every interval's start and end, the start and the stop), straight between two of them and at
 * the factor beyond the last. Old recordings, with wall stamps only, map at the factor throughout.
 */
export interface ClockPoint {
  /** Cluster ms since the recording began. */
  clusterMs: number;
  wallMs: number;
}

export interface ClockMap {
  /** Cluster ms since the recording began, of a wall time (epoch ms). */
  clusterAt(wallMs: number): number;
  /** Wall time (epoch ms) of a cluster offset. */
  wallAt(clusterMs: number): number;
}

export function clockMap(zeroWallMs: number, timeFactor: number, points: ClockPoint[]): ClockMap {
  const sorted = [{ clusterMs: 0, wallMs: zeroWallMs }, ...points].sort((a, b) => a.wallMs - b.wallMs || a.clusterMs - b.clusterMs);
  // Both clocks only move forward: drop a point that would make the map go backwards on either.
  const line: ClockPoint[] = [];
  for (const p of sorted) {
    const last = line.at(-1);
    if (!last || (p.wallMs >= last.wallMs && p.clusterMs >= last.clusterMs)) line.push(p);
  }
  const interpolate = (x: number, from: (p: ClockPoint) => number, to: (p: ClockPoint) => number, rate: number): number => {
    const i = line.findIndex((p) => from(p) > x);
    if (i === -1) return to(line.at(-1)!) + (x - from(line.at(-1)!)) * rate;
    if (i === 0) return to(line[0]!) + (x - from(line[0]!)) * rate;
    const a = line[i - 1]!;
    const b = line[i]!;
    const span = from(b) - from(a);
    return span === 0 ? to(a) : to(a) + ((x - from(a)) / span) * (to(b) - to(a));
  };
  return {
    clusterAt: (wallMs) => interpolate(wallMs, (p) => p.wallMs, (p) => p.clusterMs, timeFactor),
    wallAt: (clusterMs) => interpolate(clusterMs, (p) => p.clusterMs, (p) => p.wallMs, 1 / timeFactor),
  };
}
