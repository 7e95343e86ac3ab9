/** `--target cluster`: one mocha child on every selected spec file, against the cluster of a kubeconfig. */
import { discoverCapabilities, type TargetCapabilities } from '../../../helpers/capabilities.js';
import { describeRegistryAccess } from '../../../helpers/credentials.js';
import { currentVersion } from '../../../helpers/facts/cluster-version.js';
import { releaseNameOf } from '../../../helpers/releases/select.js';
import { runMocha } from '../mocha.js';
import { consoleLane } from '../output.js';
import { preflightCluster, resolveCredentials } from '../preflight/cluster.js';
import { preflightPhase } from '../preflight/phases.js';
import { checkBuildArchitectures, clusterArchNodes, specBuilds } from '../preflight/build-architectures.js';
import type { RunOptions } from '../options.js';
import type { Counts } from '../results/counts.js';
import type { Supervisor } from '../supervisor.js';
import { UsageError } from '../usage-error.js';
import { requireEngine, specTimeoutMs, type RunConfig } from './common.js';
import { chooseKubeconfig } from './kubeconfig-path.js';

export async function runOnCluster(files: string[], options: RunOptions, config: RunConfig, supervisor: Supervisor): Promise<Counts> {
  const kubeconfig = chooseKubeconfig(options.kubeconfig);
  const kubeconfigPath = kubeconfig.path;
  // One auth file for the whole run (preflight, build, push), chosen here and handed to the specs by path.
  const access = resolveCredentials(config.pullSecretPath);
  const { cluster, facts, toImages, notes } = await preflightCluster(kubeconfigPath, {
    toImages: options.toImage,
    imageRepo: options.imageRepo,
    access,
    // only a whole run and pre push the layered image
    willPush: Boolean(options.allowDisruptive) && (config.phase === 'all' || config.phase === 'pre'),
    disruptive: Boolean(options.allowDisruptive),
    nodeReads: config.nodeReads,
    mirrorFiles: config.mirrorFiles,
  });
  const { version, nodes } = facts;
  const caps: TargetCapabilities = await discoverCapabilities(cluster).catch(() => ({ isReference: false, timeFactor: 1 }));
  console.log(`target: cluster ${cluster.apiUrl}`);
  console.log(`current version: ${version ?? 'unknown'} (${nodes} nodes${caps.isReference ? `, an ocp-e2e reference cluster, time factor ${caps.timeFactor}` : ''})`);
  if (kubeconfig.source === 'in-cluster') console.log('credentials: this pod\'s ServiceAccount (in-cluster config: no --kubeconfig, $KUBECONFIG or ~/.kube/config)');
  for (const line of [...describeRegistryAccess(access), ...notes]) console.log(line);
  if (toImages.length === 1) console.log(`upgrade target: ${toImages[0]!.image} (release ${toImages[0]!.version})`);
  if (toImages.length > 1) console.log(`upgrade path, hop by hop: ${toImages.map((t) => `${t.version} (${t.image})`).join(' -> ')}`);
  if (config.phase !== 'all') await preflightPhase(cluster, config.phase, files);
  if (!options.allowDisruptive) {
    console.log('disruptive specs (upgrades, pool changes) will be SKIPPED: nothing on this cluster is changed; pass --allow-disruptive to run them');
  } else {
    // Only pre (and a whole run) builds and pushes the layered image: a later phase needs neither a repository nor an
    // engine (the checkpoint names the pushed image by digest).
    const builds = config.phase === 'all' || config.phase === 'pre';
    if (builds && !options.imageRepo && !caps.imageRepo) {
      throw new UsageError('--image-repo is required on a real cluster: the repository the layered OS images are pushed to and the nodes pull from (push credentials in --pull-secret)');
    }
    if (builds) {
      await requireEngine();
      // an arm64 or multi-arch cluster's nodes boot images of their own architecture: the engine must build each
      const line = await checkBuildArchitectures(await specBuilds(files), await clusterArchNodes(() => cluster.listNodes()));
      if (line) console.log(line);
    }
  }
  const target = { ...config, kind: 'cluster' as const, kubeconfigPath, pullSecretPath: access.pullSecretPath };
  // Shards of one fan-out write their JUnit under distinct names, so their reports merge.
  const junitName = options.shard ? `cluster-shard-${options.shard.index}-of-${options.shard.count}` : 'cluster';
  const mocha = { grep: options.grep, timeoutMs: specTimeoutMs(caps.timeFactor) };
  // The cluster can be upgraded once: where several selected specs upgrade, the run plans that one upgrade.
  if (options.allowDisruptive) {
    const { splitBySharing, runSharedUpgrade, pipelinePlan, finishPipelinePlan, sharedTarget } = await import('./one-upgrade.js');
    // the cluster's release now: an upgrade spec it rules out skips, so it gets no pool of the plan
    const split = await splitBySharing(files, releaseNameOf(currentVersion(await cluster.getClusterVersion())));
    const shared = { cluster, target, timeFactor: caps.timeFactor, clock: caps.clock };
    if (config.phase === 'all' && split.upgradeFiles.length > 1) return runSharedUpgrade(split, { ...shared, mocha, junitName }, supervisor);
    if (config.phase !== 'all') {
      const plan = await pipelinePlan(config.phase, split, shared);
      const counts = await runMocha({ ...mocha, files, target: plan ? { ...target, ...sharedTarget(plan, config.phase, split.upgradeFiles) } : target, junitName }, supervisor, consoleLane);
      if (plan && config.phase === 'post' && !supervisor.interruptedBy) await finishPipelinePlan(plan, split, shared);
      return counts;
    }
  }
  return runMocha({ ...mocha, files, target, junitName }, supervisor, consoleLane);
}
