/**
 * `--target reference`: each spec file gets a fresh embedded reference cluster, because a cluster can be upgraded
 * to the next release only once; the cluster is started here, in this process, and stopped with its file.
 */
import { basename } from 'node:path';
import { runMocha } from '../mocha.js';
import type { RunOptions } from '../options.js';
import { addCounts, formatCounts, NO_TESTS, type Counts } from '../results/counts.js';
import type { Supervisor } from '../supervisor.js';
import { UsageError } from '../usage-error.js';
import { requireEngine, specTimeoutMs, type RunConfig } from './common.js';

/** What this command uses of a started reference cluster (docs/architecture.md, reference/). */
interface ReferenceCluster {
  kubeconfigPath: string;
  apiUrl: string;
  timeFactor: number;
  stop(): Promise<void>;
}

export async function runOnReference(files: string[], options: RunOptions, config: RunConfig, supervisor: Supervisor): Promise<Counts> {
  await requireEngine();
  const profile = options.profile ?? '4.12-ga';
  console.log(`target: embedded reference cluster, profile ${profile}${options.fault?.length ? `, faults ${options.fault.join(', ')}` : ''}`);
  console.log('disruptive specs run: the reference cluster is made for this run and thrown away (one per spec file)');
  if (options.keepOnFailure) {
    console.log('--keep-on-failure: a failed spec leaves its objects, but its reference cluster still stops with its file; to inspect by hand, use `ocp-e2e cluster up` and --target cluster');
  }
  let total = NO_TESTS;
  for (const file of files) {
    if (supervisor.interruptedBy) break;
    total = addCounts(total, await runFile(file, profile, options, config, supervisor));
  }
  return total;
}

async function runFile(file: string, profile: string, options: RunOptions, config: RunConfig, supervisor: Supervisor): Promise<Counts> {
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  const reference = await startReference(profile, options);
  return supervisor.withCluster(reference, async () => {
    console.log(`\n${basename(file)}: reference cluster ${reference.apiUrl} ready in ${seconds()}s (time factor ${reference.timeFactor})`);
    const counts = await runMocha({
      files: [file],
      target: { ...config, kind: 'reference', kubeconfigPath: reference.kubeconfigPath, allowDisruptive: true },
      grep: options.grep,
      junitName: basename(file, '.spec.ts'),
      timeoutMs: specTimeoutMs(reference.timeFactor),
    }, supervisor);
    console.log(`${basename(file)}: ${formatCounts(counts)} in ${seconds()}s wall`);
    return counts;
  });
}

async function startReference(profile: string, options: RunOptions): Promise<ReferenceCluster> {
  try {
    // Loaded here, not at the top: `run --target cluster` never needs the reference's code.
    const { startReferenceCluster } = await import('../../../reference/index.js');
    return await startReferenceCluster({ profile, timeFactor: options.timeFactor, faults: options.fault ?? [] });
  } catch (error) {
    throw new UsageError(`cannot start the reference cluster: ${(error as Error).message}`);
  }
}
