/**
 * Must-gather for one failed test: the objects an MCO upgrade failure is diagnosed from, written as YAML under
 * reports/artifacts/<test>/ and attached to the Allure result, with the logs of the operator, the controller and
 * every daemon read through the API's pods/log on every target (pod-logs.ts). Gathering never throws: a half-gathered
 * set is better than losing the test's own failure.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { anyCli, runCli } from './cli.js';
import type { Cluster } from './cluster.js';
import { MCO_LOGS, readComponentLogs } from './pod-logs.js';
import { buildJobs, imageModeLogs } from './image-mode/artifacts.js';
import { attachText, attachYaml, toYaml } from './report.js';
import { maskSecrets } from './secrets.js';


/** A directory name for a test title: letters, digits, dashes; bounded length. */
export function artifactDirName(title: string): string {
  const slug = title
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120);
  return slug || 'unnamed-test';
}

export interface GatherOptions {
  cluster: Cluster;
  kubeconfig: string;
  testTitle: string;
  /** Extra named documents (the upgrade timeline, the judged invariants). */
  extra?: Record<string, unknown>;
  /** Gather the MCO's, MCC's and daemons' logs (default true). */
  logs?: boolean;
  /** The artefacts folder; one sub-folder per test. */
  root: string;
}

export interface GatherResult {
  dir: string;
  files: string[];
  errors: string[];
}

export async function gatherArtifacts(options: GatherOptions): Promise<GatherResult> {
  const dir = join(options.root, artifactDirName(options.testTitle));
  await mkdir(dir, { recursive: true });
  const result: GatherResult = { dir, files: [], errors: [] };
  const { cluster } = options;
  const collectors: [string, () => Promise<unknown>][] = [
    ['clusterversion', () => cluster.getClusterVersion()],
    ['clusteroperators', () => cluster.listClusterOperators()],
    ['machineconfigpools', () => cluster.listMachineConfigPools()],
    ['machineconfigs', () => cluster.listMachineConfigs()],
    ['nodes', () => cluster.listNodes()],
    ['events', () => cluster.listEvents()],
    // what today's releases add where a node's update and a pool's image mode are told (none on older releases)
    ['machineconfignodes', () => cluster.listIfServed('MachineConfigNode')],
    ['machineosconfigs', () => cluster.listIfServed('MachineOSConfig')],
    ['machineosbuilds', () => cluster.listIfServed('MachineOSBuild')],
    ['build-jobs', () => buildJobs(cluster)],
    // where the nodes and the suite pull from on a disconnected cluster: a pull that failed through a mirror is read
    // against these (4.12 serves ImageContentSourcePolicies only; IDMS and ITMS from 4.13)
    ['imagedigestmirrorsets', () => cluster.listIfServed('ImageDigestMirrorSet')],
    ['imagetagmirrorsets', () => cluster.listIfServed('ImageTagMirrorSet')],
    ['imagecontentsourcepolicies', () => cluster.listIfServed('ImageContentSourcePolicy')],
  ];
  for (const [name, extra] of Object.entries(options.extra ?? {})) collectors.push([name, async () => extra]);

  // Everything is asked at once and written in a fixed order: when the API server is failing, each read spends its
  // retries (about 3 s) and one read after another would hold the test's failure back by half a minute.
  const cli = await anyCli();
  const [values, cliGet, logs, buildLogs] = await Promise.all([
    Promise.allSettled(collectors.map(([, collect]) => collect())),
    // What a person types first: `oc get co,clusterversion,mcp,nodes` (kubectl prints the same tables from the CRDs).
    cli
      ? runCli(cli, ['get', 'clusteroperators,clusterversions,machineconfigpools,nodes', '-o', 'wide'], { kubeconfig: options.kubeconfig, allowFailure: true, timeoutMs: 60_000 })
          .catch((e: Error) => ({ command: `${cli} get`, exitCode: 1, stdout: '', stderr: e.message }))
      : undefined,
    options.logs === false
      ? []
      : Promise.all(MCO_LOGS.map((component) => readComponentLogs(cluster.kubeConfig, component).catch((e: Error) => `# could not read the logs of ${component.name}: ${e.message}\n`))),
    // image mode's build Jobs and builder: none on a cluster without image mode
    options.logs === false ? ({} as Record<string, string>) : imageModeLogs(cluster).catch((e: Error): Record<string, string> => ({ 'image-mode-logs-error.txt': `# could not read the image-mode build logs: ${e.message}\n` })),
  ]);

  for (const [i, [name]] of collectors.entries()) {
    const settled = values[i]!;
    if (settled.status === 'rejected') {
      result.errors.push(`${name}: ${(settled.reason as Error).message}`);
      continue;
    }
    // a release without MachineConfigNodes, image mode or mirror sets has none: no file for nothing
    if (Array.isArray(settled.value) && settled.value.length === 0 && /^(machine(confignodes|osconfigs|osbuilds)|build-jobs|image(digestmirrorsets|tagmirrorsets|contentsourcepolicies))$/.test(name)) continue;
    const file = join(dir, `${name}.yaml`);
    await writeFile(file, toYaml(settled.value));
    result.files.push(file);
    await attachYaml(`${name}.yaml`, settled.value);
  }

  if (cli && cliGet) {
    const r = cliGet;
    const text = `$ ${r.command}\n${r.stdout}${r.exitCode === 0 ? '' : `\n(exit ${r.exitCode}) ${r.stderr}`}`;
    await writeFile(join(dir, `${cli}-get.txt`), maskSecrets(text));
    result.files.push(join(dir, `${cli}-get.txt`));
    await attachText(`${cli} get`, text);
  }

  for (const [i, text] of logs.entries()) {
    const file = `${MCO_LOGS[i]!.name}.log`;
    await writeFile(join(dir, file), maskSecrets(text));
    result.files.push(join(dir, file));
    await attachText(file, text);
  }
  for (const [file, text] of Object.entries(buildLogs)) {
    await writeFile(join(dir, file), maskSecrets(text));
    result.files.push(join(dir, file));
    await attachText(file, text);
  }
  if (result.errors.length) {
    await writeFile(join(dir, 'gather-errors.txt'), maskSecrets(result.errors.join('\n') + '\n'));
  }
  return result;
}
