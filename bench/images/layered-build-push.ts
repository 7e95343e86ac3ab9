// Benchmark: build + push of the report's layered OS image on a warm engine, through our helpers (dockerode) and
// through the docker CLI (`docker build` + `docker push`) for the same Containerfile, side by side and interleaved.
// Also times ensureReleases cold (forced rebuild) and warm.
//
//   node --import tsx bench/images/layered-build-push.ts [--iterations N] [--json]
//
// Two cases per tool: `cached` (the engine's layer cache holds the RUN step: what a rerun on the same base does) and
// `no-cache` (the RUN step really runs). Every iteration uses a new tag and a new label value, so every push uploads
// a new manifest. The CLI uses the same classic builder (DOCKER_BUILDKIT=0) the Engine API build uses.
import { execa } from 'execa';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildImage, removeImage } from '../../lib/oci/build.js';
import { connectEngine } from '../../lib/oci/engine.js';
import { startLocalRegistry } from '../../lib/oci/local-registry.js';
import { pushImage } from '../../lib/oci/push.js';
import { getProfile } from '../../reference/profiles/index.js';
import { baseOsImage, ensureReleases } from '../../reference/releases/index.js';

const LAYERED_OS_DIR = fileURLToPath(new URL('../../images/layered-os/', import.meta.url));
const args = process.argv.slice(2);
const iterations = Number(args[args.indexOf('--iterations') + 1] ?? 0) || 5;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2);
}

const engine = await connectEngine();
const storageDir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-bench-images-'));
const registry = await startLocalRegistry({ storageDir });
const cleanup: string[] = [];
try {
  const cold = await ensureReleases({ releases: getProfile(undefined).releases, engine, registry, forceRebuild: true });
  const warm = await ensureReleases({ releases: getProfile(undefined).releases, engine, registry });
  const base = baseOsImage(cold.current);
  const repo = `${registry.address}/ocp-e2e/bench-layered`;
  const times: Record<string, number[]> = {};
  const record = (key: string, ms: number) => (times[key] ??= []).push(ms);

  const ours = async (tag: string, label: string, noCache: boolean) => {
    const t0 = performance.now();
    await buildImage(engine, { contextDir: LAYERED_OS_DIR, containerfile: 'Containerfile.report', buildArgs: { BASE_IMAGE: base }, labels: { 'ocp-e2e.io/bench': label }, tag, noCache });
    const t1 = performance.now();
    const pushed = await pushImage(engine, tag);
    const t2 = performance.now();
    cleanup.push(tag, pushed.pullspec);
    return { build: t1 - t0, push: t2 - t1 };
  };
  const cli = async (tag: string, label: string, noCache: boolean) => {
    const env = { ...process.env, DOCKER_BUILDKIT: '0' };
    const t0 = performance.now();
    await execa('docker', ['build', '-q', ...(noCache ? ['--no-cache'] : []), '-f', path.join(LAYERED_OS_DIR, 'Containerfile.report'), '--build-arg', `BASE_IMAGE=${base}`, '--label', `ocp-e2e.io/bench=${label}`, '-t', tag, LAYERED_OS_DIR], { env });
    const t1 = performance.now();
    await execa('docker', ['push', '-q', tag], { env });
    const t2 = performance.now();
    cleanup.push(tag);
    return { build: t1 - t0, push: t2 - t1 };
  };

  // One untimed round of each to warm the layer cache and the code paths.
  await ours(`${repo}:warmup-ours`, 'warmup', false);
  await cli(`${repo}:warmup-cli`, 'warmup', false);
  for (let i = 0; i < iterations; i++) {
    for (const noCache of [false, true]) {
      const mode = noCache ? 'no-cache' : 'cached';
      const order = i % 2 ? ['cli', 'ours'] : ['ours', 'cli'];
      for (const tool of order) {
        const id = randomBytes(4).toString('hex');
        const r = tool === 'ours' ? await ours(`${repo}:ours-${id}`, id, noCache) : await cli(`${repo}:cli-${id}`, id, noCache);
        record(`${tool} ${mode} build`, r.build);
        record(`${tool} ${mode} push`, r.push);
        record(`${tool} ${mode} total`, r.build + r.push);
      }
    }
  }
  const summary: Record<string, number> = {};
  for (const [key, values] of Object.entries(times)) summary[key] = Math.round(median(values));
  const overhead = (mode: string) => Math.round(((summary[`ours ${mode} total`]! / summary[`cli ${mode} total`]!) - 1) * 100);
  const result = {
    iterations,
    ensureReleasesColdMs: cold.durationMs,
    ensureReleasesColdBuilt: cold.built.length,
    ensureReleasesWarmMs: warm.durationMs,
    medianMs: summary,
    oursVsCliPercent: { cached: overhead('cached'), 'no-cache': overhead('no-cache') },
  };
  if (args.includes('--json')) {
    console.log(JSON.stringify(result, null, 2));
  } else {
    console.log(`ensureReleases: cold (forced rebuild of ${cold.built.length} images) ${cold.durationMs} ms, warm ${warm.durationMs} ms`);
    console.log(`layered image build + push, median of ${iterations} (ms):`);
    console.log('| mode | ours build | ours push | ours total | docker build | docker push | CLI total | ours vs CLI |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const mode of ['cached', 'no-cache']) {
      const s = (k: string) => summary[k];
      console.log(`| ${mode} | ${s(`ours ${mode} build`)} | ${s(`ours ${mode} push`)} | ${s(`ours ${mode} total`)} | ${s(`cli ${mode} build`)} | ${s(`cli ${mode} push`)} | ${s(`cli ${mode} total`)} | ${overhead(mode) >= 0 ? '+' : ''}${overhead(mode)}% |`);
    }
  }
} finally {
  for (const image of cleanup.reverse()) await removeImage(engine, image, { force: true }).catch(() => undefined);
  await registry.stop();
  await rm(storageDir, { recursive: true, force: true });
}
