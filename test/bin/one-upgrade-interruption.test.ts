/**
 * SIGINT to the whole suite on one cluster (`run --target cluster --allow-disruptive --to-image <next>`, no --grep,
 * against `cluster up --workers 4`) once its one shared upgrade was requested (bin/run/targets/one-upgrade.ts): the
 * run exits 130 and undoes nothing the upgrade needs: every upgrade spec's overrides, its checkpoint, the plan's
 * custom pools (with their nodes) and the plan itself stay on the cluster, and the run prints the `--phase post`
 * command to go on. That command, run from a new process as a user pastes it, follows the upgrade to its end, passes
 * on 4.12-ga and leaves nothing of the suite on the cluster.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Cluster } from '../../helpers/cluster.js';
import { CHECKPOINT_KEY, CHECKPOINT_LABEL, CHECKPOINT_NAMESPACE, checkpointName, type Checkpoint } from '../../helpers/checkpoint/format.js';
import { CUSTOM_POOL_LABEL, nodeRoleLabel } from '../../helpers/plan/custom-pools.js';
import { PLAN_CONFIGMAP } from '../../helpers/plan/plan-store.js';
import { escapeRegExp } from '../../bin/run/regexp.js';
import { TIMESTAMP } from '../../bin/run/timestamps.js';
import { clusterUp, lastLine, ocpE2e, ROOT, type ClusterUp } from '../support/cli.js';
import { startCli, type CliProcess } from '../support/cli-child.js';

const OC = join(ROOT, '..', 'shared', 'upstream', 'bin', 'oc');
const RUN_LABEL = 'ocp-e2e.io/run-id';
const UPGRADE_SPECS = ['01-upgrade-custom-os-image-both-pools', '02-upgrade-custom-os-image-worker-only', '03-upgrade-without-override', '05-remove-override-after-upgrade', '07-upgrade-with-extension', '09-custom-os-image-with-extension', '10-custom-os-image-with-realtime-kernel', '11-custom-os-image-with-kernel-arguments', '12-custom-os-image-changes-etc-usr-rpm', '13-custom-os-image-rebuilt-on-next-release', '14-kubelet-skew-after-upgrade-with-override'];
/** The first upgrade spec's process asks ClusterVersion for the upgrade and says so (helpers/flows.ts upgradeCluster). */
const REQUESTED = /upgrade to (\S+) requested with/;

/** Each upgrade spec's override MachineConfigs (01 overrides both pools, 02 the worker's, 03 none, 05 both, 07 the worker's extensions, 09-11 the worker's image with its layering, 12 the worker's image, 13 both). */
const OVERRIDES: Record<string, string[]> = {
  '01-upgrade-custom-os-image-both-pools': ['tc-54183-new-os-image-upgrade-master', 'tc-54183-new-os-image-upgrade-worker'],
  '02-upgrade-custom-os-image-worker-only': ['tc-e2e-002-worker-only-os-image-worker'],
  '03-upgrade-without-override': [],
  '05-remove-override-after-upgrade': ['tc-e2e-005-remove-after-upgrade-master', 'tc-e2e-005-remove-after-upgrade-worker'],
  '07-upgrade-with-extension': ['tc-e2e-007-usbguard-extension-worker'],
  '09-custom-os-image-with-extension': ['tc-54909-custom-os-image-extension-worker'],
  '10-custom-os-image-with-realtime-kernel': ['tc-54915-custom-os-image-realtime-worker'],
  '11-custom-os-image-with-kernel-arguments': ['tc-e2e-011-custom-os-image-kargs-worker'],
  '12-custom-os-image-changes-etc-usr-rpm': ['tc-54085-update-os-image-worker'],
  '13-custom-os-image-rebuilt-on-next-release': ['tc-e2e-013-next-release-os-image-master', 'tc-e2e-013-next-release-os-image-worker'],
  '14-kubelet-skew-after-upgrade-with-override': ['tc-e2e-014-kubelet-skew-os-image-worker'],
};

/** The custom pools the plan of these specs makes on a cluster of 10 workers (helpers/plan/pool-plan.ts), one worker each. */
const CUSTOM_POOLS = ['ocp-e2e-05', 'ocp-e2e-12', 'ocp-e2e-13', 'ocp-e2e-release'];

/** The MachineConfigs a spec's checkpoint on the cluster names as left for --phase post to judge and undo. */
async function checkpointedOverrides(cluster: Cluster, spec: string): Promise<string[] | undefined> {
  const text = (await cluster.getConfigMap(CHECKPOINT_NAMESPACE, checkpointName(spec)))?.data?.[CHECKPOINT_KEY];
  if (text === undefined) return undefined;
  const checkpoint = JSON.parse(text) as Checkpoint;
  return checkpoint.pending.flatMap((r) => r.changes).flatMap((c) => (c.kind === 'MachineConfig' ? [c.name] : [])).sort();
}

/** The suite's objects on the cluster, by kind: what an interrupt must keep and what post must remove. */
async function suiteObjects(cluster: Cluster) {
  const [machineConfigs, pools, nodes, checkpoints, plan, namespace] = await Promise.all([
    cluster.listMachineConfigs(RUN_LABEL),
    cluster.listMachineConfigPools(),
    cluster.listNodes(),
    cluster.listConfigMaps(CHECKPOINT_NAMESPACE, CHECKPOINT_LABEL).catch(() => []),
    cluster.getConfigMap(CHECKPOINT_NAMESPACE, PLAN_CONFIGMAP).catch(() => undefined),
    cluster.client.get('Namespace', CHECKPOINT_NAMESPACE),
  ]);
  return {
    machineConfigs: machineConfigs.map((m) => m.metadata.name!).sort(),
    customPools: pools.filter((p) => p.metadata.labels?.[CUSTOM_POOL_LABEL]).map((p) => p.metadata.name!).sort(),
    /** node → its labels of the suite (the custom pools' node roles) */
    nodeLabels: Object.fromEntries(nodes.map((n) => [n.metadata?.name ?? '', Object.keys(n.metadata?.labels ?? {}).filter((l) => l.includes('ocp-e2e')).sort()]).filter(([, l]) => l.length)),
    checkpoints: checkpoints.map((c) => c.metadata?.name ?? '').sort(),
    plan: plan !== undefined,
    // a namespace being deleted (Terminating: its controller empties it, then removes it, in its own time, later on a
    // loaded machine) counts as gone: the suite asked for it, which is what this checks
    namespace: namespace !== undefined && !namespace.metadata.deletionTimestamp,
  };
}

/** The custom pools the run's plan printed ("  custom pool ocp-e2e-02: node worker-1"), with their nodes. */
function plannedPools(output: string): Record<string, string> {
  return Object.fromEntries([...output.matchAll(new RegExp(`^${TIMESTAMP}\\s+custom pool (\\S+): node (\\S+)$`, 'gm'))].map((m) => [m[1]!, m[2]!]));
}

describe('reliability: SIGINT once the shared upgrade of the whole suite on one cluster was requested', function () {
  this.timeout(1_500_000);
  let up: ClusterUp | undefined;
  let run: CliProcess | undefined;

  before(async () => {
    if (!existsSync(OC)) throw new Error(`the upstream oc is missing at ${OC} (../shared/upstream/bin/oc): the runs upgrade with it, as on a QE engineer's machine`);
    up = await clusterUp(['--workers', '5', '--profile', '4.12-ga']);
  });
  after(async () => {
    if (run && run.child.exitCode === null && run.child.signalCode === null) process.kill(-run.child.pid!, 'SIGKILL');
    await up?.stop();
  });

  it('exit 130 with overrides, checkpoints, custom pools and plan kept; the printed --phase post passes and leaves nothing', async () => {
    const cluster = Cluster.fromKubeconfig(up!.kubeconfig);
    const next = (await cluster.getClusterVersion()).status?.availableUpdates?.[0]?.image;
    expect(next, 'the reference cluster offers an update').to.be.a('string');
    const env = { ...up!.env, PATH: `${dirname(OC)}:${process.env.PATH ?? ''}` };
    const reports = join(mkdtempSync(join(tmpdir(), 'ocp-e2e-one-upgrade-interrupt-')), 'reports');
    run = startCli(['run', '--target', 'cluster', '--kubeconfig', up!.kubeconfig, '--allow-disruptive', '--to-image', next!, '--reports-dir', reports], env);
    await run.waitFor(REQUESTED, 1_000_000);
    // the line comes once the request returned: ClusterVersion asks for that release now
    expect((await cluster.getClusterVersion()).spec?.desiredUpdate?.image).to.equal(next);
    const sentAt = Date.now();
    run.child.kill('SIGINT');
    const { code, at } = await run.exited;
    const output = run.output();
    console.log(`SIGINT after the shared upgrade was requested: exit ${code} ${at - sentAt} ms after the signal`);
    expect(code, output.slice(-4000)).to.equal(130);

    const kept = await suiteObjects(cluster);
    expect(kept.machineConfigs, 'every upgrade spec\'s overrides stay').to.deep.equal(Object.values(OVERRIDES).flat().sort());
    expect(kept.checkpoints, 'a checkpoint per prepared upgrade spec').to.deep.equal(UPGRADE_SPECS.map((s) => checkpointName(s)).sort());
    for (const spec of UPGRADE_SPECS) expect(await checkpointedOverrides(cluster, spec), `the overrides ${spec}'s checkpoint hands to --phase post`).to.deep.equal(OVERRIDES[spec]);
    expect(kept.customPools, 'the plan\'s custom pools stay').to.deep.equal(CUSTOM_POOLS);
    const planned = plannedPools(output);
    expect(kept.nodeLabels, 'each with the node the plan printed for it').to.deep.equal(Object.fromEntries(CUSTOM_POOLS.map((pool) => [planned[pool], [nodeRoleLabel(pool)]])));
    expect(kept.plan, 'the plan stays for --phase post').to.equal(true);
    const afterSignal = output.slice(output.indexOf('ocp-e2e: SIGINT: stopping'));
    expect(afterSignal).to.match(new RegExp(`interrupted: the upgrade to ${escapeRegExp(next!)} is under way: the overrides and checkpoints of ${UPGRADE_SPECS.join(', ')} and the custom pools`));

    // The command it printed, as the user would paste it into another shell.
    const printed = new RegExp(`^${TIMESTAMP}\\s+(ocp-e2e run .+--phase post.*)$`, 'm').exec(afterSignal)?.[1];
    expect(printed, afterSignal).to.be.a('string');
    expect(printed).to.equal(`ocp-e2e run --target cluster --kubeconfig ${up!.kubeconfig} --allow-disruptive --phase post`);
    const post = await ocpE2e(printed!.split(' ').slice(1), { env, timeoutMs: 900_000 });
    expect(post.exitCode, post.output.slice(-4000)).to.equal(0);
    // 5 specs that do not upgrade (17 and 18 of them image mode), and specs 15, 16 and 19, which 4.12 rules out (no
    // image mode): they skip saying why
    expect(lastLine(post.output)).to.equal('11 passed, 0 failed, 8 skipped');
    const history = (await cluster.getClusterVersion()).status?.history ?? [];
    expect(history.map((h) => h.state), 'the install and the one upgrade').to.deep.equal(['Completed', 'Completed']);
    expect(history[0]?.image, 'the upgrade to the release asked for').to.equal(next);
    const left = await suiteObjects(cluster);
    expect(left, 'nothing of the suite is left').to.deep.equal({ machineConfigs: [], customPools: [], nodeLabels: {}, checkpoints: [], plan: false, namespace: false });
  });
});
