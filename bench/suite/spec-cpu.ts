/**
 * The CPU one spec run costs the whole machine (issue 46 item 2):
 *   node --import tsx bench/suite/spec-cpu.ts [--runs 5] [--grep 54183] [-- more run switches]
 * Runs `bin/ocp-e2e run --grep <case>` N times, one after another, and for each reads the machine's busy time from
 * /proc/stat across the run (every process: the launcher with the reference cluster and its API server, the spec
 * process, dockerd's build, the registry, oc) and each process's CPU from /proc/<pid>/stat, sampled every 100 ms, so
 * a process that lived between two samples is missed and one that ended is counted up to its last sample. Prints the
 * median, each run, and the share of each kind of process (by its command line) of the median run. This process's own
 * CPU (the sampling, ~0.1 s a run) is taken out of the machine's figure and reported beside it. Run it on a quiet
 * machine: the busy time of /proc/stat is everyone's.
 */
import { execa } from 'execa';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

const value = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const runs = Number(value('--runs') ?? 5);
const grep = value('--grep') ?? '54183';
const more = process.argv.includes('--') ? process.argv.slice(process.argv.indexOf('--') + 1) : [];
const TICK = 100; // USER_HZ: /proc's clock ticks per second on Linux

/** Busy and total jiffies of all CPUs (/proc/stat's first line: user nice system idle iowait irq softirq steal). */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const idle = fields[3]! + fields[4]!;
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** This process: its sampling of /proc costs CPU too, which the figures leave out (reported on its own). */
const MEASURER = 'this benchmark (sampling /proc, not counted)';

/** utime + stime of every process now, with a short name of what it runs. */
function processTicks(): Map<number, { ticks: number; what: string }> {
  const out = new Map<number, { ticks: number; what: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(rest[11]) + Number(rest[12]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      out.set(Number(entry), { ticks, what: Number(entry) === process.pid ? MEASURER : kindOf(cmdline) });
    } catch {
      // gone between the listing and the read
    }
  }
  return out;
}

/** What a process is, for the table: the suite's and the reference's parts by their command lines. */
function kindOf(cmdline: string[]): string {
  const line = cmdline.join(' ');
  if (/mocha/.test(line)) return 'spec process (mocha)';
  if (/bin\/ocp-e2e(\.js|\.ts)? run/.test(line)) return 'launcher + reference cluster + API server';
  if (/docker-registry|registry serve/.test(line)) return 'registry';
  if (/dockerd|containerd|runc|docker-init|buildkit/.test(line)) return 'dockerd (builds, pushes)';
  if (/podman/.test(line)) return 'podman';
  if (/\boc\b|\/oc /.test(line) || cmdline[0]?.endsWith('/oc')) return 'oc';
  if (/esbuild/.test(line)) return 'esbuild';
  return cmdline[0]?.split('/').pop() ?? '?';
}

interface RunCost {
  /** The machine's busy time across the run, less this benchmark's own. */
  machineCpuS: number;
  /** This benchmark's own CPU across the run (its sampling). */
  measurerCpuS: number;
  wallS: number;
  byKind: Map<string, number>;
  exitCode: number | undefined;
}

async function oneRun(): Promise<RunCost> {
  const first = processTicks();
  const last = new Map(first);
  // A process that has ended but not been reaped has an empty command line: it keeps the kind it was seen with.
  const note = (pid: number, p: { ticks: number; what: string }) => last.set(pid, p.what === '?' && last.has(pid) ? { ...p, what: last.get(pid)!.what } : p);
  const sample = setInterval(() => {
    for (const [pid, p] of processTicks()) note(pid, p);
  }, 100);
  const before = machineTicks();
  const ownBefore = process.cpuUsage();
  const started = Date.now();
  const r = await execa('bin/ocp-e2e', ['run', '--grep', grep, ...more], { reject: false, all: true });
  const after = machineTicks();
  clearInterval(sample);
  for (const [pid, p] of processTicks()) note(pid, p);
  const byKind = new Map<string, number>();
  for (const [pid, p] of last) {
    const spent = (p.ticks - (first.get(pid)?.ticks ?? 0)) / TICK;
    if (spent > 0) byKind.set(p.what, (byKind.get(p.what) ?? 0) + spent);
  }
  const own = process.cpuUsage(ownBefore);
  const measurerCpuS = (own.user + own.system) / 1e6;
  byKind.delete(MEASURER);
  return { machineCpuS: (after.busy - before.busy) / TICK - measurerCpuS, measurerCpuS, wallS: (Date.now() - started) / 1000, byKind, exitCode: r.exitCode };
}

const results: RunCost[] = [];
for (let i = 0; i < runs; i++) {
  const cost = await oneRun();
  if (cost.exitCode !== 0) throw new Error(`run ${i + 1} of bin/ocp-e2e run --grep ${grep} exited ${cost.exitCode}: a failing run's cost says nothing`);
  results.push(cost);
  console.log(`run ${i + 1}: ${cost.machineCpuS.toFixed(2)} CPU s of the machine (and ${cost.measurerCpuS.toFixed(2)} s this benchmark's sampling), ${cost.wallS.toFixed(1)} s wall`);
}
const sorted = [...results].sort((a, b) => a.machineCpuS - b.machineCpuS);
const median = sorted[Math.floor(sorted.length / 2)]!;
console.log(`\n${new Date().toISOString()}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log(`command: bin/ocp-e2e run --grep ${grep}${more.length ? ` ${more.join(' ')}` : ''}, ${runs} runs`);
console.log(`machine CPU per run: median ${median.machineCpuS.toFixed(2)} s (runs: ${results.map((r) => r.machineCpuS.toFixed(2)).join(', ')}); wall median ${[...results].sort((a, b) => a.wallS - b.wallS)[Math.floor(runs / 2)]!.wallS.toFixed(1)} s`);
console.log('\nthe median run by process (CPU s, share of the machine\'s busy time):');
for (const [what, s] of [...median.byKind].sort((a, b) => b[1] - a[1])) {
  if (s < 0.01) continue;
  console.log(`  ${s.toFixed(2).padStart(6)}  ${((100 * s) / median.machineCpuS).toFixed(0).padStart(3)}%  ${what}`);
}
