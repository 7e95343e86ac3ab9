/**
 * The daemon's booted-image check (reference/mcd/booted-image.ts, upstream pkg/daemon/daemon.go checkOS per release):
 * the texts of each release's check, then the fault host-boots-previous-deployment on two clusters. On 4.18-to-4.19
 * (the exact check) the node is Degraded with upstream's text; on 4.12-ga (the ostree.commit rule) a layered image
 * built FROM the base the node still boots passes for booted, and the node reports Done.
 */
import { expect } from 'chai';
import { ANN } from '../../../reference/constants.js';
import { checkBootedImage, deploymentCommitOf, encapsulatedCommitOf } from '../../../reference/mcd/booted-image.js';
import { BOOTABLE_LABEL, OSTREE_COMMIT_LABEL } from '../../../reference/mcd/image-type.js';
import { baseOsImage } from '../../../reference/releases/release-info.js';
import { OS_REPOSITORY } from '../../../reference/releases/recipes.js';
import { RegistryClient } from '../../../lib/oci/image-files.js';
import { bootedImage, customImage, describeCluster, nodesOfRole, overrideMachineConfig, waitFor, type Harness, type Obj } from '../support/cluster.js';
import { withCluster } from '../support/scenario-steps.js';

const BASE = `127.0.0.1:5000/${OS_REPOSITORY}@sha256:${'a'.repeat(64)}`;
const LAYERED = `127.0.0.1:5000/ocp-e2e/layered-os@sha256:${'b'.repeat(64)}`;
const COMMIT = 'c'.repeat(64);
const baseLabels = { [BOOTABLE_LABEL]: 'true', [OSTREE_COMMIT_LABEL]: COMMIT };

describe('booted-image check: the texts of each release', () => {
  const commits = (label: string | Error | undefined, booted = COMMIT) => async () => ({ label, booted });

  it('BUG-B compares the pullspecs only, and its text has no commit', async () => {
    const answer = await checkBootedImage({ check: 'pullspec', configName: 'rendered-worker-1', wanted: LAYERED, booted: BASE, commits: commits(COMMIT) });
    expect(answer.reason).to.equal(`unexpected on-disk state validating against rendered-worker-1: expected target osImageURL "${LAYERED}", have "${BASE}"`);
    expect(answer.logs).to.deep.equal([]);
  });

  it('FIX to 4.18 before e6eacd707: an image whose ostree.commit is the booted commit passes; otherwise the text names the commit', async () => {
    const passed = await checkBootedImage({ check: 'pullspec-or-commit', configName: 'rendered-worker-1', wanted: LAYERED, booted: BASE, commits: commits(COMMIT) });
    expect(passed.reason).to.equal(undefined);
    expect(passed.logs).to.deep.equal([`We are technically in the right image even if the URL doesn't match (${COMMIT} == ${LAYERED})`]);
    const other = await checkBootedImage({ check: 'pullspec-or-commit', configName: 'rendered-worker-1', wanted: LAYERED, booted: BASE, commits: commits('d'.repeat(64)) });
    expect(other.reason).to.equal(`unexpected on-disk state validating against rendered-worker-1: expected target osImageURL "${LAYERED}", have "${BASE}" ("${COMMIT}")`);
    const uninspectable = await checkBootedImage({ check: 'pullspec-or-commit', configName: 'rendered-worker-1', wanted: LAYERED, booted: BASE, commits: commits(new Error('manifest unknown')) });
    expect(uninspectable.logs).to.deep.equal(['Unable to check manifest for matching hash: manifest unknown']);
    expect(uninspectable.reason).to.match(/have ".*" \("c{64}"\)$/);
  });

  it('4.18 and later: the exact string, and a warning for an image that is not a digest', async () => {
    const tagged = '127.0.0.1:5000/ocp-e2e/layered-os:latest';
    const same = await checkBootedImage({ check: 'pullspec-digest-advised', configName: 'rendered-worker-1', wanted: tagged, booted: tagged, commits: commits(COMMIT) });
    expect(same).to.deep.equal({ logs: [`osImageURL "${tagged}" is not a digest; using a digest is recommended`] });
    const differs = await checkBootedImage({ check: 'pullspec-digest-advised', configName: 'rendered-worker-1', wanted: LAYERED, booted: BASE, commits: commits(COMMIT) });
    expect(differs).to.deep.equal({ reason: `unexpected on-disk state validating against rendered-worker-1: expected target osImageURL "${LAYERED}", have "${BASE}"`, logs: [] });
  });

  it("a release's OS image is its commit; a layered image inherits the label, yet its deployment is a commit of its own", () => {
    expect(encapsulatedCommitOf(baseLabels)).to.equal(COMMIT);
    expect(encapsulatedCommitOf({ [OSTREE_COMMIT_LABEL]: COMMIT }), 'machine-os-content was never encapsulated').to.equal(undefined);
    expect(deploymentCommitOf(BASE, 'sha256:x', baseLabels)).to.equal(COMMIT);
    expect(deploymentCommitOf(LAYERED, 'sha256:y', baseLabels)).to.match(/^[0-9a-f]{64}$/).and.not.equal(COMMIT);
  });
});

const WAIT_MS = 60_000;

/** The first worker whose daemon wrote `state`, with its desired config. */
async function workerIn(h: Harness, state: string, what: string): Promise<Obj> {
  return waitFor(what, async () => (await nodesOfRole(h.k, 'worker')).find((n) => n.metadata.annotations?.[ANN.state] === state), WAIT_MS, () => describeCluster(h.k, h.cluster));
}

describe('fault host-boots-previous-deployment', function () {
  this.timeout(240_000);

  it("4.18-to-4.19: the node comes back on its old image and the daemon's exact check degrades it with upstream's text", async () => {
    await withCluster({ profile: '4.18-to-4.19', faults: ['host-boots-previous-deployment'] }, async (h) => {
      const current = baseOsImage(h.cluster.releases.current);
      const wanted = baseOsImage(h.cluster.releases.next);
      await h.k.create('MachineConfig', overrideMachineConfig('tc-next-base-worker', 'worker', wanted));
      const node = await workerIn(h, 'Degraded', 'a worker Degraded by its booted-image check');
      const config = node.metadata.annotations![ANN.desiredConfig]!;
      expect(node.metadata.annotations![ANN.reason]).to.equal(`unexpected on-disk state validating against ${config}: expected target osImageURL "${wanted}", have "${current}"`);
      expect(node.metadata.annotations![ANN.currentConfig], 'the node stays on its config').to.not.equal(config);
      expect(bootedImage(h.cluster, node)).to.equal(current);
    });
  });

  it('4.12-ga: a layered image inheriting the booted base\'s ostree.commit passes the check, the node wrongly Done; another base is caught, naming the booted commit', async () => {
    await withCluster({ profile: '4.12-ga', faults: ['host-boots-previous-deployment'] }, async (h) => {
      const base = baseOsImage(h.cluster.releases.current);
      const layered = await customImage(h.cluster);
      await h.k.create('MachineConfig', overrideMachineConfig('tc-layered-worker', 'worker', layered));
      const done = await waitFor('every worker Done on a config that names the layered image', async () => {
        const workers = await nodesOfRole(h.k, 'worker');
        const configs = await Promise.all(workers.map((n) => h.k.get<Obj>('MachineConfig', n.metadata.annotations?.[ANN.currentConfig] ?? '')));
        return workers.every((n, i) => n.metadata.annotations?.[ANN.state] === 'Done' && configs[i]?.spec?.osImageURL === layered) ? workers : undefined;
      }, WAIT_MS, () => describeCluster(h.k, h.cluster));
      for (const node of done) expect(bootedImage(h.cluster, node), 'Done, yet booted on the base').to.equal(base);

      // the next release's base carries another commit: the check fails and names the commit the node booted
      const next = baseOsImage(h.cluster.releases.next);
      await h.k.create('MachineConfig', overrideMachineConfig('tc-zz-next-base-worker', 'worker', next));
      const node = await workerIn(h, 'Degraded', 'a worker Degraded by its booted-image check');
      const labels = ((await new RegistryClient({ credentials: h.cluster.registryCredentials, caPems: [h.cluster.caPem] }).imageConfig(base)).config as { Labels: Record<string, string> }).Labels;
      const config = node.metadata.annotations![ANN.desiredConfig]!;
      expect(node.metadata.annotations![ANN.reason]).to.equal(
        `unexpected on-disk state validating against ${config}: expected target osImageURL "${next}", have "${base}" ("${labels[OSTREE_COMMIT_LABEL]}")`,
      );
    });
  });
});
