/**
 * The running reference cluster renders as upstream does: the rendered configs it was set up with and, while the flow
 * of spec 1 (QE 54183: override both pools with a layered OS image, then upgrade) runs on each profile together with
 * a few generated user MachineConfigs given by the API, every rendered MachineConfig the cluster creates must equal
 * the upstream render (mco-oracle of the profile's commit) of the MachineConfigs, pools and ControllerConfig the
 * cluster held at that moment. The cluster is observed through the API only.
 */
import { expect } from 'chai';
import { validateMachineConfig, mergeMachineConfigs } from '../../../reference/mco/render.js';
import { createRng } from '../../../reference/rng.js';
import { customImage, describeCluster, overrideMachineConfig, poolSettledOnNew, requestUpgrade, startHarness, waitFor, cond, type Obj } from '../support/cluster.js';
import { COMMITS, type UpstreamCommit } from './support/oracle.js';
import { clusterUserMachineConfigs } from './support/render-cases.js';
import { RenderObserver } from './support/render-observer.js';
import { DIFF_SEED } from './support/run-settings.js';
import { unreconcilableReason } from '../../../reference/mcd/reconcilable.js';
import type { MachineConfig } from '../../../reference/mco/types.js';
import { mcoAt, PROFILE_NAMES, PROFILES, type McoCode, type ProfileName } from '../../../reference/profiles/index.js';
import { ANN } from '../../../reference/constants.js';

const WAIT_MS = 60_000;

/**
 * A config the reference renders on its own (its validity is what the differential test checks) and that a 4.12
 * daemon applies in place: one it cannot (a non-core user, disks, an append) leaves its node Unreconcilable, as on a
 * real cluster, and the pools would never roll out the override this flow waits for.
 */
function renders(mc: Parameters<typeof validateMachineConfig>[0], run: ProfileRun): boolean {
  try {
    validateMachineConfig(mc);
    mergeMachineConfigs([mc], { defaultOsImageURL: 'x', includeExtensionsImage: true });
    const spec = (mc as unknown as MachineConfig).spec;
    // BUG-B's daemon refuses a realtime kernel and extensions on the layered image this flow overrides the pools with
    if (PROFILES[run.profile].daemon.layeredImageRefusesLayering && (spec.kernelType === 'realtime' || (spec.extensions ?? []).length)) return false;
    return unreconcilableReason({ metadata: {}, spec: { config: {} } }, mc as unknown as MachineConfig) === undefined;
  } catch {
    return false;
  }
}

/**
 * One profile's cluster and the upstream code its rendered configs are judged by: the code of the release its
 * ControllerConfig names (a 4.12 → 4.13 cluster renders with 4.12's code, then with 4.13's).
 */
interface ProfileRun {
  profile: ProfileName;
  /** The upstream commit of the installed release's code, and of the next release's. */
  before: UpstreamCommit;
  after: UpstreamCommit;
  /** Whether the upgrade completes on this code (the report's nightly stays Degraded). */
  upgradeCompletes: boolean;
}

/** The oracle of an MCO code the profiles play (each has one: test/reference/upstream/support/oracle.ts). */
function commitOf(code: McoCode): UpstreamCommit {
  const commit = COMMITS.find((c) => c.commit === code.upstream.commit);
  if (!commit) throw new Error(`no mco-oracle for MCO code ${code.upstream.label} (${code.upstream.commit})`);
  return commit;
}

/** Whether every MCO code a profile plays has an oracle (../shared/upstream/bin has none for release-4.18 and later). */
const hasOracles = (profile: ProfileName): boolean =>
  [PROFILES[profile].releases.current.version, PROFILES[profile].releases.next.version].every((v) => COMMITS.some((c) => c.commit === mcoAt(PROFILES[profile], v).upstream.commit));

/** The profiles judged here; the others are modelled from reading upstream (reference/README.md) and judged by the specs. */
const JUDGED = PROFILE_NAMES.filter(hasOracles);

const RUNS: ProfileRun[] = JUDGED.map((profile) => {
  const { releases } = PROFILES[profile];
  return {
    profile,
    before: commitOf(mcoAt(PROFILES[profile], releases.current.version)),
    after: commitOf(mcoAt(PROFILES[profile], releases.next.version)),
    upgradeCompletes: PROFILES[profile].operator.skipsOverriddenOsImageCheck,
  };
});

function codeOf(run: ProfileRun, cc: { metadata?: { annotations?: Record<string, string> } }): UpstreamCommit {
  return cc.metadata?.annotations?.[ANN.releaseImageVersion] === PROFILES[run.profile].releases.next.version ? run.after : run.before;
}

function codesLabel(run: ProfileRun): string {
  return run.before === run.after ? run.before.label : `${run.before.label}, then ${run.after.label}`;
}

async function spec1Flow(run: ProfileRun): Promise<{ checks: Awaited<ReturnType<RenderObserver['judge']>>; notes: string[] }> {
  console.log(`      cluster render ${run.profile}: seed ${DIFF_SEED} (OCP_E2E_DIFF_SEED)`);
  const h = await startHarness({ profile: run.profile });
  const observer = new RenderObserver(h.cluster.kubeconfigPath);
  try {
    await observer.start();
    const extras = clusterUserMachineConfigs(createRng(DIFF_SEED), 4, (mc) => renders(mc, run));
    const before: Record<string, string> = {};
    for (const pool of ['master', 'worker']) before[pool] = (await h.k.get<Obj>('MachineConfigPool', pool))!.status.configuration.name;
    for (const mc of extras) await h.k.create('MachineConfig', mc as unknown as Obj);
    const custom = await customImage(h.cluster);
    for (const pool of ['master', 'worker']) await h.k.create('MachineConfig', overrideMachineConfig(`tc-54183-new-os-image-upgrade-${pool}`, pool, custom));
    const overridden: Record<string, string> = {};
    for (const pool of ['master', 'worker']) {
      const p = await waitFor(`pool ${pool} to roll out the override`, () => poolSettledOnNew(h.k, pool, before[pool]), WAIT_MS, () => describeCluster(h.k));
      overridden[pool] = p.status.configuration.name;
    }
    await requestUpgrade(h.k, h.cluster.releases.next.image);
    if (run.upgradeCompletes) {
      await waitFor('the upgrade to complete', async () => {
        const head = (await h.k.get<Obj>('ClusterVersion', 'version'))?.status?.history?.[0];
        return head?.state === 'Completed' && head.version === h.cluster.releases.next.version;
      }, WAIT_MS, () => describeCluster(h.k));
    } else {
      await waitFor('the buggy operator to stay Degraded on the osImageURL check after the upgrade', async () => {
        const co = await h.k.get<Obj>('ClusterOperator', 'machine-config');
        return /Unable to apply .*osImageURL mismatch/.test(cond(co, 'Degraded').message ?? '');
      }, WAIT_MS, () => describeCluster(h.k));
    }
    for (const pool of ['master', 'worker']) await waitFor(`pool ${pool} on the new release's rendered config`, () => poolSettledOnNew(h.k, pool, overridden[pool]), WAIT_MS, () => describeCluster(h.k));
    // let the last events arrive
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    observer.stop();
    await h.cluster.stop();
  }
  return { checks: await observer.judge((cc) => codeOf(run, cc)), notes: observer.notes() };
}

describe('upstream differential: the running reference cluster renders as upstream', function () {
  this.timeout(400_000);
  it('judges every profile whose code has an oracle: the 4.12 and 4.13 profiles', () => {
    expect(JUDGED).to.include.members(['4.12-ga', '4.12-nightly-2022-09-08', '4.12-to-4.13']);
    const left = PROFILE_NAMES.filter((p) => !JUDGED.includes(p));
    console.log(`      left out, no oracle of their code in ../shared/upstream/bin: ${left.join(', ') || 'none'}`);
  });
  for (const run of RUNS) {
    it(`${run.profile} (${codesLabel(run)}): its initial rendered configs and every one created during spec 1 equal the upstream render of the cluster's inputs at that moment`, async () => {
      const { checks, notes } = await spec1Flow(run);
      const mismatches = checks.filter((c) => c.mismatch).map((c) => `${c.rendered} (pool ${c.pool}): ${c.mismatch}`);
      expect(mismatches, notes.join('; ')).to.deep.equal([]);
      // the two pools' configs at the start, then the override and the upgrade each render both pools at least once
      expect(checks.length, checks.map((c) => c.rendered).join(', ')).to.be.at.least(6);
      console.log(`      ${checks.length} rendered configs checked (seed ${DIFF_SEED}); states back needed: ${checks.map((c) => c.matchedStatesBack).join(',')}`);
    });
  }
});
