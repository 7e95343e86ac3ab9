/**
 * Issue 43's image-mode shape, the whole suite: a 4.20-to-4.21 reference cluster (`cluster up`) on which the user made,
 * before the suite, a custom pool `infra-im` as OpenShift documents custom pools (it takes the worker configs and its
 * own) and put it in on-cluster image mode (MachineOSConfig `infra-im`, built and booted). Then `run --target cluster
 * --allow-disruptive`, the real-cluster path `--one-cluster` runs on the reference (one upgrade shared by the upgrade
 * specs, custom pools for them): every spec passes or is skipped before cluster time with a reason naming the pool and
 * its MachineOSConfig (or one of its own), none fails; afterwards no pool is degraded or paused, nothing of the suite's
 * is left, and the user's pool, MachineOSConfig, push secret and node are theirs as before (same uid and generation,
 * the node in the pool, booting the image its MachineOSConfig says). A run of a fresh cluster per spec file cannot
 * carry a pool the user made, so the shared run is the one this shape has.
 */
import { expect } from 'chai';
import { execa } from 'execa';
import { join } from 'node:path';
import { ReferenceInfoConfigMap } from '../../helpers/capabilities.js';
import { Cluster } from '../../helpers/cluster.js';
import { nodesOfPool } from '../../helpers/facts/pool.js';
import { ImageAnnotations } from '../../helpers/image-mode/types.js';
import { CUSTOM_POOL_LABEL } from '../../helpers/plan/custom-pools.js';
import { readRunFacts } from '../../helpers/report/run-facts.js';
import { RunIdLabel, type MachineConfigPool, type MachineOSConfig } from '../../helpers/types.js';
import { clusterUp, lastLine, ocpE2e, ROOT, type ClusterUp } from '../support/cli.js';
import { SPEC_COUNT } from './support/spec-files.js';

const OC = join(ROOT, '..', 'shared', 'upstream', 'bin', 'oc');
const POOL = 'infra-im';
/** The plan's custom pools (12 on 4.20-to-4.21) and one node left in pool worker, beside the user's node: 15 leaves one spare. */
const WORKERS = 15;

/** The reasons a spec may be skipped on this shape: the user's image-mode pool, named with its MachineOSConfig, or spec 19's own. */
const ALLOWED_SKIPS = [
  new RegExp(`pool ${POOL} (?:takes pool \\w+'s MachineConfigs .* and )?is in on-cluster image mode \\(MachineOSConfig ${POOL}\\)`),
  // spec 19 judges an upgrade to 4.22 only
  /an osImageURL override on an image-mode pool: the upgrade goes to 4\.21\.\d+: /,
];

const userPool = `apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfigPool
metadata:
  name: ${POOL}
spec:
  machineConfigSelector:
    matchExpressions:
    - {key: machineconfiguration.openshift.io/role, operator: In, values: [worker, ${POOL}]}
  nodeSelector:
    matchLabels:
      node-role.kubernetes.io/${POOL}: ""
`;

const userMachineOSConfig = (pushSpec: string) => `apiVersion: machineconfiguration.openshift.io/v1
kind: MachineOSConfig
metadata:
  name: ${POOL}
spec:
  machineConfigPool:
    name: ${POOL}
  imageBuilder:
    imageBuilderType: Job
  containerFile:
  - containerfileArch: NoArch
    content: |
      FROM configs AS final
      RUN echo user > /etc/user-image-mode.conf
  renderedImagePushSecret:
    name: user-push
  renderedImagePushSpec: ${pushSpec}
`;

/**
 * What of a pool is the user's: its uid, labels and the spec fields they wrote. Not its generation: the MCO writes the
 * pool's spec.configuration (the rendered config), so the upgrade's new config bumps it.
 */
const userPart = (pool: MachineConfigPool) => ({
  uid: pool.metadata.uid,
  labels: pool.metadata.labels ?? {},
  spec: { selector: pool.spec?.machineConfigSelector, nodes: pool.spec?.nodeSelector, paused: pool.spec?.paused ?? false },
});

interface UserObjects {
  pool: ReturnType<typeof userPart>;
  mosc: { uid?: string; generation?: number; spec: unknown };
  secretUid?: string;
  node: string;
}

describe('ocp-e2e run --target cluster: the whole suite on a cluster with a user\'s pool in on-cluster image mode (4.20-to-4.21)', function () {
  this.timeout(1_200_000);
  let up: ClusterUp | undefined;
  let cluster: Cluster;
  let repository: string;
  let userBefore: UserObjects;

  const oc = async (args: string[], input?: string) => {
    const r = await execa(OC, args, { env: { ...up!.env, KUBECONFIG: up!.kubeconfig }, input, reject: false, all: true });
    expect(r.exitCode, `oc ${args.join(' ')}: ${String(r.all)}`).to.equal(0);
    return String(r.stdout);
  };
  const readPool = async () => (await cluster.listMachineConfigPools()).find((p) => p.metadata.name === POOL);
  const readMosc = async () => (await cluster.listIfServed<MachineOSConfig>('MachineOSConfig')).find((m) => m.metadata.name === POOL);

  /** The pool's one node, whether it is Done on the MachineOSConfig's image, and that image. */
  const poolImage = async () => {
    const [pool, mosc, nodes, pools] = await Promise.all([readPool(), readMosc(), cluster.listNodes(), cluster.listMachineConfigPools()]);
    const members = pool ? nodesOfPool(pool, pools, nodes) : [];
    const image = (mosc?.status as { currentImagePullSpec?: string } | undefined)?.currentImagePullSpec;
    const annotations = members[0]?.metadata?.annotations ?? {};
    const updated = pool?.status?.updatedMachineCount === 1 && pool.status?.machineCount === 1;
    return { members: members.map((n) => n.metadata?.name), image, booted: updated && image !== undefined && annotations[ImageAnnotations.desiredImage] === image && annotations[ImageAnnotations.currentImage] === image };
  };

  before(async () => {
    up = await clusterUp(['--profile', '4.20-to-4.21', '--workers', String(WORKERS)]);
    cluster = Cluster.fromKubeconfig(up.kubeconfig);
    const info = await cluster.getConfigMap(ReferenceInfoConfigMap.namespace, ReferenceInfoConfigMap.name);
    repository = `${(info?.data?.imageRepo ?? '').split('/')[0]}/user/${POOL}`;
    // The user's node: the last worker by name, the one the plan would give its first custom pool if it counted the
    // nodes of a user's pool as free (it did: spec 13 then found its pool without a node and infra-im lost its image)
    const workers = (await oc(['get', 'nodes', '-l', 'node-role.kubernetes.io/worker', '-o', 'name'])).split('\n').filter(Boolean).sort();
    const node = workers.at(-1)!.replace(/^node\//, '');
    await oc(['label', 'node', node, `node-role.kubernetes.io/${POOL}=`]);
    await oc(['create', '-f', '-'], userPool);
    await oc(['create', 'secret', 'generic', 'user-push', '-n', 'openshift-machine-config-operator', '--type=kubernetes.io/dockerconfigjson', `--from-file=.dockerconfigjson=${up.env.REGISTRY_AUTH_FILE}`]);
    await oc(['create', '-f', '-'], userMachineOSConfig(`${repository}:latest`));
    const deadline = Date.now() + 180_000;
    let seen = await poolImage();
    while (!seen.booted) {
      if (Date.now() > deadline) throw new Error(`the user's pool ${POOL} did not boot its MachineOSConfig's build within 180 s: ${JSON.stringify(seen)}`);
      await new Promise((r) => setTimeout(r, 500));
      seen = await poolImage();
    }
    expect(seen.members).to.deep.equal([node]);
    expect(seen.image).to.match(new RegExp(`^${repository}@sha256:[0-9a-f]{64}$`));
    const pool = (await readPool())!;
    const mosc = (await readMosc())!;
    const secret = await cluster.client.get('Secret', 'user-push', 'openshift-machine-config-operator');
    userBefore = {
      pool: userPart(pool),
      mosc: { uid: mosc.metadata.uid, generation: mosc.metadata.generation, spec: mosc.spec },
      secretUid: secret?.metadata.uid,
      node,
    };
  });

  after(async () => {
    await up?.stop();
  });

  it('every spec passes or is skipped before cluster time naming the pool and its MachineOSConfig (or its own reason); none fails', async () => {
    const r = await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', up!.kubeconfig, '--allow-disruptive'], { env: up!.env, timeoutMs: 900_000 });
    expect(r.exitCode, r.output.slice(-5000)).to.equal(0);
    const summary = /^(\d+) passed, 0 failed, (\d+) skipped$/.exec(lastLine(r.output));
    expect(summary, lastLine(r.output)).to.not.equal(null);
    const [, passed, skipped] = summary!.map(Number);
    expect(passed! + skipped!, 'tests run or skipped').to.be.at.least(SPEC_COUNT);
    const skips = r.output.split('\n').filter((l) => /\bSKIP \[sig-mco\]/.test(l));
    for (const line of skips) expect(ALLOWED_SKIPS.some((p) => p.test(line)), `a skip for no reason of this shape: ${line}`).to.equal(true);
    // the shape bites: the worker specs are refused for the user's pool, by name; the image-mode specs on their own pools run
    expect(skips.filter((l) => ALLOWED_SKIPS[0]!.test(l)).length, skips.join('\n')).to.be.at.least(1);
    // the report's facts say what the specs found: the user's pool in image mode, by its MachineOSConfig
    const facts = readRunFacts(join(r.reportsDir, 'allure-results'));
    expect(facts.length, 'fact files').to.be.greaterThan(0);
    for (const f of facts) expect(f.pools, f.spec).to.include(`${POOL}: 1 node(s), on-cluster image mode (MachineOSConfig ${POOL})`);
    // 11 would only share pool worker, which the user's pool takes configs from: the plan gives it a custom pool and it runs
    for (const test of ['PstChkUpgrade-Longduration-High-E2E-015', 'PstChkUpgrade-Longduration-High-E2E-011', 'Longduration-High-E2E-017', 'Longduration-High-E2E-018']) {
      expect(r.output, `${test} passed`).to.match(new RegExp(`✔ Author:ocp-e2e-NonPreRelease-${test}-`));
    }
  });

  it('afterwards: no pool degraded or paused, nothing of the suite\'s left', async () => {
    const pools = await cluster.listMachineConfigPools();
    expect(pools.map((p) => p.metadata.name).sort(), 'the pools: the user\'s and the cluster\'s only').to.deep.equal([POOL, 'master', 'worker']);
    const condition = (p: MachineConfigPool, type: string) => p.status?.conditions?.find((c) => c.type === type)?.status;
    for (const p of pools) {
      expect(condition(p, 'Degraded'), `mcp/${p.metadata.name} Degraded`).to.equal('False');
      expect(condition(p, 'Updated'), `mcp/${p.metadata.name} Updated`).to.equal('True');
      expect(p.spec?.paused ?? false, `mcp/${p.metadata.name} paused`).to.equal(false);
    }
    expect(pools.filter((p) => p.metadata.labels?.[CUSTOM_POOL_LABEL]).map((p) => p.metadata.name), 'suite custom pools').to.deep.equal([]);
    expect((await cluster.listMachineConfigs(RunIdLabel)).map((mc) => mc.metadata.name), 'suite MachineConfigs').to.deep.equal([]);
    expect((await cluster.listIfServed<MachineOSConfig>('MachineOSConfig')).map((m) => m.metadata.name), 'MachineOSConfigs').to.deep.equal([POOL]);
    expect((await cluster.listNodes()).flatMap((n) => Object.keys(n.metadata?.labels ?? {}).filter((l) => l.includes('ocp-e2e'))), 'suite node labels').to.deep.equal([]);
  });

  it('the user\'s pool, MachineOSConfig and push secret are untouched, and its node boots the image its MachineOSConfig says', async () => {
    const pool = (await readPool())!;
    const mosc = (await readMosc())!;
    expect(userPart(pool)).to.deep.equal(userBefore.pool);
    expect({ uid: mosc.metadata.uid, generation: mosc.metadata.generation, spec: mosc.spec }).to.deep.equal(userBefore.mosc);
    expect((await cluster.client.get('Secret', 'user-push', 'openshift-machine-config-operator'))?.metadata.uid, 'push secret user-push').to.equal(userBefore.secretUid);
    // the upgrade rebuilt the pool's image FROM 4.21's base: a new build of the user's MachineOSConfig, in its repository
    const seen = await poolImage();
    expect(seen.members, `the nodes of pool ${POOL}`).to.deep.equal([userBefore.node]);
    expect(seen.image).to.match(new RegExp(`^${repository}@sha256:[0-9a-f]{64}$`));
    expect(seen.booted, JSON.stringify(seen)).to.equal(true);
  });
});
