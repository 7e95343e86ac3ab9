/**
 * `ocp-e2e cluster up`: start the embedded reference cluster for interactive use and keep it running in the
 * foreground until SIGINT/SIGTERM. Prints what a person needs to reproduce the report by hand: the kubeconfig, the API
 * URL, the registry and image repository, the release images and how fast cluster time runs. `--env-out FILE` writes
 * the shell lines after which the report's own commands (oc, docker, podman) run as they are, with only the registry
 * host changed. Secrets never reach the console or that file: it names files holding them (mode 0600).
 * RBAC is on, as on a real cluster; `--service-account NS/NAME [--cluster-role FILE]` adds an account held to its
 * roles, with a kubeconfig of its own (service-account.ts), and `--audit-log FILE` records what such users asked.
 */
import { copyFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { collect, nonNegativeInteger, positiveNumber } from '../args.js';
import { addHelpExtras } from '../help.js';
import { writeWhole } from '../../lib/files/write-whole.js';
import type { ReferenceCluster } from '../../reference/index.js';
import { CLOCK_MODES, DEFAULT_CLOCK, type ClockMode } from '../../reference/clock.js';
import { DEFAULT_PROFILE, PROFILE_NAMES, REPORT_PROFILE } from '../../reference/profiles/index.js';
import { baseOsImage, baseOsTag, type ReleaseInfo } from '../../reference/releases/release-info.js';
import { ARCHES, TOPOLOGIES, type Arch, type Topology } from '../../reference/topology.js';
import { auditLogWriter } from './audit-log.js';
import { parseServiceAccount, setUpServiceAccount, type ServiceAccountSetup } from './service-account.js';

interface UpOptions {
  profile: string;
  kubeconfigOut?: string;
  envOut?: string;
  timeFactor: number;
  clock: ClockMode;
  seed: number;
  fault: string[];
  workers?: number;
  topology: Topology;
  infraNodes?: number;
  arch: Arch;
  disconnected?: boolean;
  verbose?: boolean;
  serviceAccount?: { namespace: string; name: string };
  clusterRole: string[];
  serviceAccountKubeconfig?: string;
  auditLog?: string;
}

function serviceAccountOption(value: string): { namespace: string; name: string } {
  try {
    return parseServiceAccount(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message.replace(/^--service-account \S+: /, ''));
  }
}

const repeat = (value: string, previous: string[] = []): string[] => [...previous, value];

const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

/** The variables that point oc, docker, podman and kubectl at the cluster and its registry. */
export function clientEnvironment(cluster: ReferenceCluster, kubeconfig: string): { name: string; value: string; why: string }[] {
  const files = cluster.registryFiles;
  return [
    { name: 'KUBECONFIG', value: kubeconfig, why: 'oc and kubectl reach the API server (its CA is in the kubeconfig)' },
    { name: 'SSL_CERT_FILE', value: files.caBundleFile, why: 'oc trusts the registry: the system roots plus the cluster CA' },
    { name: 'REGISTRY_AUTH_FILE', value: files.authFile, why: 'oc and podman log in to the registry with the pull secret\'s credentials (file mode 0600)' },
    { name: 'DOCKER_CONFIG', value: files.dockerConfigDir, why: 'the docker CLI sends the same credentials for docker build (FROM) and docker push' },
  ];
}

/** The text of the --env-out file: comments and export lines, nothing secret. */
export function envFileText(cluster: ReferenceCluster, kubeconfig: string): string {
  const lines = [
    `# ocp-e2e reference cluster (profile ${cluster.profile}), registry ${cluster.registry}. Source this file, then run the`,
    '# commands of the report as they are, with the registry host changed. The files named here go away when the',
    '# cluster stops.',
  ];
  for (const v of clientEnvironment(cluster, kubeconfig)) lines.push(`# ${v.why}`, `export ${v.name}=${shellQuote(v.value)}`);
  return lines.join('\n') + '\n';
}

/** How the engines were made to trust the registry's CA, in words. */
function engineTrustText(cluster: ReferenceCluster): string[] {
  const lines = cluster.engineTrust.installed.map((f) => `    ${f}`);
  const out = ['  engines trust the registry CA through certs.d (removed when the cluster stops):', ...lines];
  if (!lines.length) out[0] = '  engines: the CA could not be installed in any certs.d folder; podman will refuse the registry (dockerd speaks TLS to loopback registries without verifying)';
  for (const s of cluster.engineTrust.skipped) out.push(`    not written: ${s.dir} (${s.reason})`);
  return out;
}

/** A release as the report's step 1 shows it: the payload, then each OS image (the base OS first) by the tag name the payload gives it. */
function releaseLines(title: string, release: ReleaseInfo): string[] {
  const base = baseOsTag(release);
  const osImages = Object.entries(release.osImages).sort(([a], [b]) => Number(b === base) - Number(a === base) || a.localeCompare(b));
  const named = [['payload', release.image], ...osImages];
  return [`  ${title.padEnd(15)} ${release.version}`, ...named.map(([name, pullspec]) => `    ${name!.padEnd(14)} ${pullspec}`)];
}

/** The instructions printed once the cluster is up. */
export function usageText(cluster: ReferenceCluster, kubeconfig: string, envFile?: string, more: string[] = []): string {
  const minutesPerSecond = (cluster.timeFactor / 60).toFixed(cluster.timeFactor % 60 === 0 ? 0 : 1);
  const { current, next, path } = cluster.releases;
  const later = path.slice(2);
  const customImage = `${cluster.registry}/sregidor/sregidor-os:mco_layering`;
  const setup = envFile
    ? [`  source ${envFile}`, '    (it sets ' + clientEnvironment(cluster, kubeconfig).map((v) => v.name).join(', ') + ')']
    : clientEnvironment(cluster, kubeconfig).map((v) => `  export ${v.name}=${shellQuote(v.value)}   # ${v.why}`);
  return [
    `reference cluster up (profile ${cluster.profile}${cluster.faults.length ? `, faults ${cluster.faults.join(', ')}` : ''}, seed ${cluster.seed})`,
    '',
    `  kubeconfig:   ${kubeconfig}`,
    `  API server:   ${cluster.apiUrl}`,
    `  registry:     ${cluster.registry}   (HTTPS with a certificate from the cluster's CA; pulls and pushes need the credentials of the pull secret openshift-config/pull-secret)`,
    `  cluster CA:   ${cluster.registryFiles.caFile}   (signed the API server's and the registry's certificates)`,
    ...engineTrustText(cluster),
    `  image repo:   ${cluster.imageRepo}`,
    `  time factor:  ${cluster.timeFactor} (${minutesPerSecond} cluster minutes per wall second; object timestamps are cluster time)`,
    '',
    ...releaseLines('current release', current),
    ...releaseLines('next release', next),
    ...later.flatMap((release) => releaseLines('then release', release)),
    '',
    'Reproduce the report with its own commands: quay.io and registry.ci.openshift.org become this registry, the rest',
    'runs as written. First point oc, docker and podman at the cluster and its registry:',
    ...setup,
    '  1. oc adm release info --pullspecs 2> /dev/null | grep rhel',
    `  2. a Dockerfile FROM the ${baseOsTag(current) ?? 'base OS'} pullspec of step 1 (${baseOsImage(current)}) with the report's RUN line, then`,
    `     docker build -t ${customImage} . && docker push ${customImage}     (podman build / podman push work the same)`,
    `  3, 4. cat <<EOF | oc create -f -   the two MachineConfigs, with osImageURL: "${customImage}"`,
    '  5. oc get mcp        (until both pools are UPDATED)',
    `  6. oc adm upgrade --to-image ${next.image} --allow-explicit-upgrade --force`,
    // the path goes on one hop at a time: each later release updates only from the one before it
    ...later.map((release) => `     once ${path[path.indexOf(release) - 1]!.version} is Completed: oc adm upgrade --to-image ${release.image} --allow-explicit-upgrade --force`),
    '     oc get co machine-config; oc get clusterversion',
    '',
    ...more,
    'Press Ctrl-C to stop.',
  ].join('\n');
}

async function up(options: UpOptions): Promise<void> {
  const { startReferenceCluster } = await import('../../reference/index.js');
  if (!options.kubeconfigOut && !options.envOut) throw new Error('give --env-out FILE (or --kubeconfig-out FILE): where to write how to reach the cluster');
  const kubeconfig = path.resolve(options.kubeconfigOut ?? `${options.envOut}.kubeconfig`);
  const envFile = options.envOut ? path.resolve(options.envOut) : undefined;
  if (!options.serviceAccount && (options.clusterRole.length || options.serviceAccountKubeconfig)) {
    throw new Error('--cluster-role and --service-account-kubeconfig need --service-account NAMESPACE/NAME');
  }
  const cluster = await startReferenceCluster({
    onAuthorize: options.auditLog ? auditLogWriter(path.resolve(options.auditLog)) : undefined,
    profile: options.profile,
    timeFactor: options.timeFactor,
    clock: options.clock,
    seed: options.seed,
    faults: options.fault,
    workers: options.workers,
    topology: options.topology,
    infraNodes: options.infraNodes,
    arch: options.arch,
    disconnected: options.disconnected,
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
    // Scripts and tests wait for these files to appear; one read while still empty left oc without the cluster's CA
    // (x509 from the cluster's own registry: 9 of 48 starts of six clusters at once, test/bin/parallel-clusters.test.ts).
    await writeWhole(kubeconfig, (partial) => copyFile(cluster.kubeconfigPath, partial));
  } catch (error) {
    await cluster.stop();
    throw new Error(`cannot write the kubeconfig to ${kubeconfig}: ${(error as Error).message}`);
  }
  // before the env file: whoever waits for that file finds the account's kubeconfig there too
  const account = options.serviceAccount ? await serviceAccountOf(cluster, kubeconfig, options) : undefined;
  if (envFile) {
    try {
      await writeWhole(envFile, (partial) => writeFile(partial, envFileText(cluster, kubeconfig), { mode: 0o600 }));
    } catch (error) {
      await cluster.stop();
      throw new Error(`cannot write the environment file ${envFile}: ${(error as Error).message}`);
    }
  }
  console.log(usageText(cluster, kubeconfig, envFile, account ? serviceAccountLines(account) : []));
  // foreground: the controllers, API server and registry keep the event loop alive until a signal arrives
  await new Promise<never>(() => undefined);
}

async function serviceAccountOf(cluster: ReferenceCluster, kubeconfig: string, options: UpOptions): Promise<ServiceAccountSetup> {
  const kubeconfigOut = path.resolve(options.serviceAccountKubeconfig ?? `${kubeconfig}.sa`);
  try {
    return await setUpServiceAccount(cluster.kubeconfigPath, { ...options.serviceAccount!, clusterRoleFiles: options.clusterRole, kubeconfigOut });
  } catch (error) {
    await cluster.stop();
    throw new Error(`cannot set up the ServiceAccount ${options.serviceAccount!.namespace}/${options.serviceAccount!.name}: ${(error as Error).message}`);
  }
}

/** What the account is and where its kubeconfig is; never the token. */
function serviceAccountLines(account: ServiceAccountSetup): string[] {
  const roles = account.bindings.length
    ? account.bindings.map((b) => `    ClusterRole ${b.role} (ClusterRoleBinding ${b.name})`)
    : ['    no role: only what every authenticated user may do (discovery, access reviews)'];
  return [
    `ServiceAccount ${account.user} (RBAC holds it to its roles; the admin kubeconfig above bypasses RBAC):`,
    ...roles,
    `  its kubeconfig: ${account.kubeconfig}   (token from the TokenRequest API, file mode 0600)`,
    '',
  ];
}

export function register(program: Command): void {
  const cluster = program.command('cluster').description('The embedded reference OpenShift cluster');
  const upCommand = cluster
    .command('up')
    .description('Start the reference cluster in the foreground until Ctrl-C, and print how to use it')
    .addOption(new Option('--profile <profile>', 'behaviour profile (the list below)').choices(PROFILE_NAMES).default(DEFAULT_PROFILE))
    .option('--env-out <file>', 'write the shell lines (KUBECONFIG, SSL_CERT_FILE, REGISTRY_AUTH_FILE, DOCKER_CONFIG) that point oc, docker and podman at the cluster and its registry; `source` it')
    .option('--kubeconfig-out <file>', 'where to write the kubeconfig (default: <env-out>.kubeconfig)')
    .option('--time-factor <n>', 'cluster seconds per wall second', positiveNumber, 600)
    .addOption(new Option('--clock <mode>', 'skip (cluster time is wall time × the factor while the cluster works, and jumps to the next timer when nothing does) or fixed (always wall time × the factor)').choices([...CLOCK_MODES]).default(DEFAULT_CLOCK))
    .option('--seed <n>', 'seed of every duration the reference draws', nonNegativeInteger, 1)
    .addOption(new Option('--fault <name>', 'break a behaviour on purpose (names below; repeatable or comma-separated)').argParser(collect).default([], 'none'))
    .option('--workers <n>', 'worker nodes of an ha cluster (default: 2; a compact or single-node cluster has none)', nonNegativeInteger)
    .option('--infra-nodes <n>', 'nodes of an infra pool as OpenShift documents it (roles worker and infra; it selects the worker configs too) (default: none)', nonNegativeInteger)
    .addOption(new Option('--topology <shape>', 'ha (three masters and the workers), compact (three masters that are the workers) or sno (single-node OpenShift)').choices([...TOPOLOGIES]).default('ha'))
    .option('--disconnected', 'a disconnected cluster: the payloads name quay.io\'s pullspecs, reached only through mirror sets to the local registry (an ImageContentSourcePolicy on 4.12, ImageDigestMirrorSet and ImageTagMirrorSet from the 4.18 CRDs); the nodes follow them and cannot reach quay.io (default: off)')
    .addOption(new Option('--arch <arch>', 'the nodes\' architectures: amd64, arm64, or multi (amd64 masters, workers amd64 and arm64; OS images and payload as image indexes)').choices([...ARCHES]).default('amd64'))
    .option('-v, --verbose', 'print the controllers\' log lines')
    .option('--service-account <namespace/name>', 'also make this ServiceAccount (and its namespace) and write a kubeconfig that authenticates as it: RBAC holds it to its roles, as a real cluster does (default: none; the admin kubeconfig bypasses RBAC)', serviceAccountOption)
    .addOption(new Option('--cluster-role <file>', 'with --service-account: apply the ClusterRole(s) of this YAML file (e.g. deploy/clusterrole.yaml) and bind each to the account; repeatable').argParser(repeat).default([], 'none: the account may only discover and ask what it may do'))
    .option('--service-account-kubeconfig <file>', 'with --service-account: where its kubeconfig goes (default: <kubeconfig>.sa)')
    .option('--audit-log <file>', 'write one JSON line per API request of any user but the admin (user, verb, group, resource, subresource, namespace, name, allowed): what a role must allow (default: none)')
    .action(async (options: UpOptions) => up(options));
  addHelpExtras(upCommand, {
    examples: [
      'ocp-e2e cluster up --kubeconfig-out /tmp/ref.kubeconfig',
      `ocp-e2e cluster up --profile ${REPORT_PROFILE} --kubeconfig-out /tmp/ref.kubeconfig   # the bug report's code`,
      'ocp-e2e cluster up --kubeconfig-out /tmp/ref.kubeconfig --fault sticky-override --time-factor 60',
      'KUBECONFIG=/tmp/ref.kubeconfig kubectl get clusterversion,mcp,nodes                          # in another shell',
      'ocp-e2e cluster up --kubeconfig-out /tmp/ref.kubeconfig --service-account ocp-e2e/ocp-e2e --cluster-role deploy/clusterrole.yaml',
      'ocp-e2e run --target cluster --kubeconfig /tmp/ref.kubeconfig.sa --allow-disruptive             # the suite as that account',
    ],
    environment: ['DOCKER_HOST', 'XDG_RUNTIME_DIR', 'OCP_E2E_REFERENCE_WORKDIR'],
    profiles: true,
    faults: true,
    exitCodes: ['0  stopped by Ctrl-C/SIGTERM after a clean shutdown', '2  usage or environment problem (bad option, unknown fault, no container engine), said in one message'],
  });
}
