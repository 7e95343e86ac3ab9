import { expect } from 'chai';
import { parseRpmOstreeStatus } from '../../../helpers/node-os.js';
import { registryImageReader } from '../../../reference/images.js';
import { semanticEqual } from '../../../reference/equality.js';
import { WorkQueue } from '../../../reference/kube/workqueue.js';
import { planUpdate, rpmOstreeStatusJson, osImageName } from '../../../reference/mcd/os-status.js';
import { createRng } from '../../../reference/rng.js';
import type { RegistryClient } from '../../../lib/oci/image-files.js';

const content = (digest: string) => ({ digest, osRelease: { PRETTY_NAME: 'Red Hat Enterprise Linux CoreOS 412.86.202209080023-0 (Ootpa)', VERSION: '412.86.202209080023-0' }, packages: ['zsh-5.5.1-10.el8', 'bash-4.4.20-4.el8'] });
const D1 = `sha256:${'a'.repeat(64)}`;
const D2 = `sha256:${'b'.repeat(64)}`;

describe('reference daemon: node facts', () => {
  it('the simulated host\'s rpm-ostree status --json is what the suite\'s parser reads on a real node', () => {
    const json = rpmOstreeStatusJson(
      { pullspec: `127.0.0.1:5000/custom@${D2}`, content: content(D2), timestampMs: 1_662_600_000_000 },
      { pullspec: `127.0.0.1:5000/base@${D1}`, content: content(D1), timestampMs: 1_662_500_000_000 },
    );
    const parsed = JSON.parse(json);
    expect(parsed.deployments).to.have.length(2);
    expect(parsed.deployments[0]).to.include({ booted: true, 'container-image-reference': `ostree-unverified-registry:127.0.0.1:5000/custom@${D2}`, 'container-image-reference-digest': D2, version: '412.86.202209080023-0' });
    expect(parsed.deployments[1]).to.include({ booted: false });
    expect(parseRpmOstreeStatus(json, 'debug pod')).to.deep.equal({ image: `127.0.0.1:5000/custom@${D2}`, digest: D2, source: 'debug pod' });
  });
  it('osImage is PRETTY_NAME', () => {
    expect(osImageName(content(D1))).to.equal('Red Hat Enterprise Linux CoreOS 412.86.202209080023-0 (Ootpa)');
  });
  it('a node update takes 10-20 cluster minutes split into its steps', () => {
    for (let seed = 0; seed < 50; seed++) {
      const plan = planUpdate(createRng(seed));
      const total = plan.drainMs + plan.pullMs + plan.rebootMs + plan.settleMs;
      expect(total).to.be.within(10 * 60_000, 20 * 60_000);
      expect(plan.rebootMs).to.be.greaterThan(plan.drainMs);
    }
  });
  it('refuses registries other than loopback without touching the network', async () => {
    const reader = registryImageReader({} as RegistryClient);
    let message = '';
    await reader.readOsImage('quay.io/sregidor/sregidor-os:mco_layering').catch((e: Error) => (message = e.message));
    expect(message).to.equal('Creating importer: failed to invoke method OpenImage: pinging container registry quay.io: Get "https://quay.io/v2/": dial tcp: lookup quay.io: no such host');
  });
});

describe('reference plumbing', () => {
  it('semantic equality ignores key order, nulls, empty values', () => {
    expect(semanticEqual({ a: 1, b: [], c: null, d: { e: '' } }, { a: 1 })).to.equal(true);
    expect(semanticEqual({ a: 1, b: [1] }, { b: [1], a: 1 })).to.equal(true);
    expect(semanticEqual({ a: 1 }, { a: 2 })).to.equal(false);
  });
  it('the work queue coalesces a burst into one run and never runs a key twice at once', async () => {
    const abort = new AbortController();
    let runs = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    const queue = new WorkQueue(async () => {
      runs++;
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      await new Promise((r) => setTimeout(r, 20));
      concurrent--;
    }, { name: 't', signal: abort.signal, batchWallMs: 5 });
    queue.add('k');
    await new Promise((r) => setTimeout(r, 30));
    expect(runs, 'nothing runs before the queue starts (its caches are not synced yet)').to.equal(0);
    queue.start();
    for (let i = 0; i < 50; i++) queue.add('k');
    await new Promise((r) => setTimeout(r, 10));
    for (let i = 0; i < 50; i++) queue.add('k'); // while running: exactly one more run
    await new Promise((r) => setTimeout(r, 100));
    await queue.idle();
    abort.abort();
    expect(runs).to.equal(2);
    expect(maxConcurrent).to.equal(1);
  });
});
