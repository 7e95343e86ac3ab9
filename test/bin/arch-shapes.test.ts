/**
 * The suite on arm64 and multi-arch reference clusters (issue 43 item 3): the layered image is built for the nodes'
 * architectures (an OCI image index over both on a heterogeneous cluster) and each node is judged against its own
 * architecture's image; an engine that cannot build a needed architecture stops the run before any cluster time.
 * The multi case runs on 4.20-to-4.21, whose daemons refuse an OS image of another architecture (4.12's stage it):
 * an amd64-only image there fails the arm64 worker, so the index is what makes it pass.
 */
import { expect } from 'chai';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { lastLine, ocpE2e } from '../support/cli.js';

/** The `layered image` attachment (flows.ts buildCustomOsImage) of a run: what was built, per architecture. */
async function layeredImageOf(reportsDir: string): Promise<{ pullspec: string; digest: string; platforms?: Array<{ architecture: string; digest: string; pullspec: string }> }> {
  const dir = join(reportsDir, 'allure-results');
  for (const name of (await readdir(dir)).filter((n) => n.endsWith('-attachment.yaml'))) {
    const doc = parse(await readFile(join(dir, name), 'utf8')) as { pullspec?: string; checks?: unknown } | null;
    if (doc && typeof doc === 'object' && doc.pullspec && doc.checks) return doc as never;
  }
  throw new Error(`no layered image attachment in ${dir}`);
}

/** Every step title of the run's results. */
async function stepTitles(reportsDir: string): Promise<string[]> {
  const dir = join(reportsDir, 'allure-results');
  const titles: string[] = [];
  const walk = (steps: Array<{ name?: string; steps?: unknown[] }> = []): void => {
    for (const s of steps) {
      if (s.name) titles.push(s.name);
      walk(s.steps as never);
    }
  };
  for (const name of (await readdir(dir)).filter((n) => n.endsWith('-result.json'))) walk((JSON.parse(await readFile(join(dir, name), 'utf8')) as { steps?: never }).steps);
  return titles;
}

describe('ocp-e2e run on arm64 and multi-arch reference clusters', function () {
  this.timeout(300_000);

  it('--arch arm64: spec 1 passes with its image built for linux/arm64 (its config says arm64); spec 10 is skipped with its reason', async () => {
    const r = await ocpE2e(['run', '--arch', 'arm64', '--grep', '54183|54915'], { timeoutMs: 280_000 });
    expect(r.exitCode, r.output.slice(-4000)).to.equal(0);
    expect(lastLine(r.output)).to.equal('1 passed, 0 failed, 1 skipped');
    expect(r.output).to.match(/layered images are built for arm64 \(5 node\(s\); a build for linux\/arm64 ran a program of that architecture\)/);
    expect(r.output).to.include('build for linux/arm64 Step 4/10 : FROM ${BASE_IMAGE}');
    expect(r.output).to.include('SKIP [sig-mco] MCO layering: a custom osImage with the realtime kernel: pool worker has 2 node(s) of architecture arm64');
    expect(r.output).to.include('kernel-rt (kernelType: realtime) exists for x86_64 only; run this spec on a pool of amd64 nodes');
    // the suite read the pushed image's config back (layered-image.ts expectBuiltFor): arm64, one image, no index
    const image = await layeredImageOf(r.reportsDir);
    expect(image.platforms?.map((p) => p.architecture)).to.deep.equal(['arm64']);
    expect(image.pullspec).to.equal(image.platforms![0]!.pullspec);
  });

  it('--arch multi on 4.20-to-4.21: spec 1 passes with an image index over amd64 and arm64, each node judged against its own entry', async () => {
    const r = await ocpE2e(['run', '--arch', 'multi', '--profile', '4.20-to-4.21', '--grep', '54183'], { timeoutMs: 280_000 });
    expect(r.exitCode, r.output.slice(-4000)).to.equal(0);
    expect(lastLine(r.output)).to.equal('1 passed, 0 failed, 0 skipped');
    const image = await layeredImageOf(r.reportsDir);
    expect(image.platforms?.map((p) => p.architecture)).to.deep.equal(['amd64', 'arm64']);
    const [amd64, arm64] = image.platforms!;
    expect(new Set([image.digest, amd64!.digest, arm64!.digest]).size, 'the index and its two images').to.equal(3);
    expect(r.output).to.include(`pushed the image index ${image.pullspec} over amd64 ${amd64!.digest}, arm64 ${arm64!.digest}`);
    // the MachineConfigs name the index; worker 0 runs amd64, worker 1 arm64 (reference/topology.ts)
    const titles = await stepTitles(r.reportsDir);
    expect(titles.some((t) => t.includes('ip-10-0-160-20.us-east-2.compute.internal') && t.includes(`booted ${image.pullspec} (its amd64 image)`))).to.equal(true);
    expect(titles.some((t) => t.includes('ip-10-0-160-21.us-east-2.compute.internal') && t.includes(`booted ${image.pullspec} (its arm64 image)`))).to.equal(true);
  });

  it('an engine that cannot build arm64 (OCP_E2E_BUILD_PLATFORMS=linux/amd64) stops --arch arm64 with exit 2 before any cluster starts', async () => {
    const r = await ocpE2e(['run', '--arch', 'arm64', '--grep', '54183'], { timeoutMs: 60_000, env: { OCP_E2E_BUILD_PLATFORMS: 'linux/amd64' } });
    expect(r.exitCode, r.output.slice(-4000)).to.equal(2);
    expect(r.output).to.include('the container engine cannot build the layered OS image for arm64 (linux/arm64): OCP_E2E_BUILD_PLATFORMS=linux/amd64 does not list linux/arm64');
    expect(r.output).to.include("5 node(s) of the specs' pools run arm64 (ip-10-0-128-10.us-east-2.compute.internal");
    expect(r.output).to.include('update-binfmts --enable qemu-aarch64').and.include('a native builder');
    expect(r.output).to.not.include('reference cluster');
    expect(r.output).to.not.include('▶ phase');
  });
});
