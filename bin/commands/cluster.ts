/**
 * `ocp-e2e cluster up`: start the embedded reference cluster for interactive use and keep it running in the
 * foreground until SIGINT/SIGTERM. Prints what a person needs to reproduce the report by hand: the kubeconfig, the API
 * URL, the registry and image repository, the release images and how fast cluster time runs.
 */
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { Command, Option } from 'commander';
import { collect, nonNegativeInteger, positiveNumber } from '../args.js';
import { addHelpExtras } from '../help.js';
import type { ReferenceCluster } from '../../reference/index.js';

interface UpOptions {
  profile: string;
  kubeconfigOut: string;
  timeFactor: number;
  seed: number;
  fault: string[];
  workers: number;
  verbose?: boolean;
}

/** The instructions printed once the cluster is up. */
export function usageText(cluster: ReferenceCluster, kubeconfig: string): string {
  const minutesPerSecond = (cluster.timeFactor / 60).toFixed(cluster.timeFactor % 60 === 0 ? 0 : 1);
  const { current, next } = cluster.releases;
  return [
    `reference cluster up (profile ${cluster.profile}${cluster.faults.length ? `, faults ${cluster.faults.join(', ')}` : ''}, seed ${cluster.seed})`,
    '',
    `  kubeconfig:   ${kubeconfig}`,
    `  API server:   ${cluster.apiUrl}`,
    `  registry:     ${cluster.registry}   (plain HTTP on loopback; docker push works without TLS)`,
    `  image repo:   ${cluster.imageRepo}`,
    `  time factor:  ${cluster.timeFactor} (${minutesPerSecond} cluster minutes per wall second; object timestamps are cluster time)`,
    '',
    `  current release ${current.version}`,
    `    payload        ${current.image}`,
    `    rhel-coreos-8  ${current.rhelCoreos8}`,
    `    machine-os-content ${current.machineOsContent}`,
    `  next release    ${next.version}`,
    `    payload        ${next.image}`,
    `    rhel-coreos-8  ${next.rhelCoreos8}`,
    `    machine-os-content ${next.machineOsContent}`,
    '',
    'Reproduce the report:',
    `  export KUBECONFIG=${kubeconfig}`,
    '  kubectl get co machine-config; kubectl get clusterversion; kubectl get mcp',
    `  docker build -t ${cluster.imageRepo}:custom -f images/layered-os/Containerfile --build-arg BASE_IMAGE=${current.rhelCoreos8} images/layered-os && docker push ${cluster.imageRepo}:custom`,
    '  kubectl create -f <MachineConfig with spec.osImageURL = the pushed image by digest, one per role>',
    `  kubectl patch clusterversion version --type merge -p '{"spec":{"desiredUpdate":{"version":"","image":"${next.image}","force":true}}}'`,
    '',
    'Press Ctrl-C to stop.',
  ].join('\n');
}

async function up(options: UpOptions): Promise<void> {
  const { startReferenceCluster } = await import('../../reference/index.js');
  const kubeconfig = path.resolve(options.kubeconfigOut);
  const cluster = await startReferenceCluster({
    profile: options.profile,
    timeFactor: options.timeFactor,
    seed: options.seed,
    faults: options.fault,
    workers: options.workers,
    // lets tests keep their registry storage apart from a developer's
    workDir: process.env.OCP_E2E_REFERENCE_WORKDIR || undefined,
    log: options.verbose ? (line) => console.error(line) : (line) => (/^(registry|releases|API server|cluster seeded|controllers)/.test(line) ? console.error(line) : undefined),
  });
  let stopping: Promise<void> | undefined;
  const stop = (signal: string): void => {
    if (stopping) return;
    console.error(`\n${signal}: stopping the reference cluster`);
    stopping = cluster.stop().then(() => process.exit(0), (error) => {
      console.error(`ocp-e2e: stopping failed: ${(error as Error).message}`);
      process.exit(1);
    });
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  try {
    await copyFile(cluster.kubeconfigPath, kubeconfig);
  } catch (error) {
    await cluster.stop();
    throw new Error(`cannot write the kubeconfig to ${kubeconfig}: ${(error as Error).message}`);
  }
  console.log(usageText(cluster, kubeconfig));
  // foreground: the controllers, API server and registry keep the event loop alive until a signal arrives
  await new Promise<never>(() => undefined);
}

export function register(program: Command): void {
  const cluster = program.command('cluster').description('The embedded reference OpenShift cluster');
  const upCommand = cluster
    .command('up')
    .description('Start the reference cluster in the foreground until Ctrl-C, and print how to use it')
    .addOption(new Option('--profile <profile>', 'behaviour profile').choices(['4.12-ga', '4.12-nightly-2022-09-08']).default('4.12-ga'))
    .requiredOption('--kubeconfig-out <file>', 'where to write the kubeconfig')
    .option('--time-factor <n>', 'cluster seconds per wall second', positiveNumber, 600)
    .option('--seed <n>', 'seed of every duration the reference draws', nonNegativeInteger, 1)
    .addOption(new Option('--fault <name>', 'break a behaviour on purpose (names below; repeatable or comma-separated)').argParser(collect).default([], 'none'))
    .option('--workers <n>', 'worker nodes', nonNegativeInteger, 2)
    .option('-v, --verbose', 'print the controllers\' log lines')
    .action(async (options: UpOptions) => up(options));
  addHelpExtras(upCommand, {
    examples: [
      'ocp-e2e cluster up --kubeconfig-out /tmp/ref.kubeconfig',
      'ocp-e2e cluster up --profile 4.12-nightly-2022-09-08 --kubeconfig-out /tmp/ref.kubeconfig   # the buggy nightly',
      'ocp-e2e cluster up --kubeconfig-out /tmp/ref.kubeconfig --fault sticky-override --time-factor 60',
      'KUBECONFIG=/tmp/ref.kubeconfig kubectl get clusterversion,mcp,nodes                          # in another shell',
    ],
    environment: ['DOCKER_HOST', 'XDG_RUNTIME_DIR', 'OCP_E2E_REFERENCE_WORKDIR'],
    faults: true,
    exitCodes: ['0  stopped by Ctrl-C/SIGTERM after a clean shutdown', '2  usage or environment problem (bad option, unknown fault, no container engine), said in one message'],
  });
}
