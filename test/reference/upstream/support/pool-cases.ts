/**
 * Seeded inputs for the operator's required-pool check (isMachineConfigPoolConfigurationValid): pools with and without
 * spec/status configuration and sources, rendered and source MachineConfigs present or missing, controller-version
 * annotations missing or mismatched, osImageURL equal or not, with and without os-image-url-overridden, release-version
 * annotation missing or different, and the pool conditions machineConfigPoolStatus prints (with texts that need
 * quoting).
 */
import { ANN } from '../../../../reference/constants.js';
import { isMachineConfigPoolConfigurationValid, notFoundError } from '../../../../reference/mco/pool-validity.js';
import type { Condition, MachineConfig, MachineConfigPool } from '../../../../reference/mco/types.js';
import type { Rng } from '../../../../reference/rng.js';
import { runOracle, type UpstreamCommit } from './oracle.js';

export interface PoolCase {
  pool: MachineConfigPool;
  machineConfigs: MachineConfig[];
  version: string;
  releaseVersion: string;
  osURL: string;
}

export function poolCase(rng: Rng): PoolCase {
  const chance = (p: number): boolean => rng.next() < p;
  const pick = <T>(items: readonly T[]): T => items[rng.int(0, items.length - 1)]!;
  const version = pick(['6317747450e67d52573f15c231bc78c761a7a440', 'cad20f7101719838aaa87c066430987303500fa6', 'v2']);
  const releaseVersion = pick(['4.12.0-0.nightly-2022-09-08-002336', '4.12.0-0.nightly-2022-09-12-152748', 'rv2']);
  const osURL = pick(['quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:1111', 'myurl', 'registry.local:5000/os:custom']);
  const poolName = pick(['master', 'worker', 'infra', 'dummy-pool']);
  const renderedName = `rendered-${poolName}-${pick(['aaaa', 'bbbb'])}`;
  const sourceNames = [`00-${poolName}`, `01-${poolName}-kubelet`, `99-${poolName}-ssh`, 'tc-54183-new-os-image-upgrade-master', 'user-0'].filter(() => chance(0.6));

  const configuration = (): { name?: string; source?: Array<{ kind: string; name: string; apiVersion: string }> } | undefined => {
    if (chance(0.05)) return undefined;
    const out: { name?: string; source?: Array<{ kind: string; name: string; apiVersion: string }> } = {};
    if (!chance(0.08)) out.name = chance(0.85) ? renderedName : pick(['', 'rendered-other-cccc']);
    if (!chance(0.08)) out.source = sourceNames.map((name) => ({ kind: 'MachineConfig', name, apiVersion: 'machineconfiguration.openshift.io/v1' }));
    return out;
  };
  const text = (): string => pick(['', 'Failed to render', 'node "n-0" is reporting: "unexpected on-disk state"', 'tab\there', 'newline\nhere', 'ünïcode', 'quote " and \\ backslash', '\u0001ctl', '\u2028sep']);
  const condition = (type: string): Condition => ({ type, status: pick(['True', 'False', 'Unknown']), reason: text(), message: text() });
  const conditions: Condition[] = [];
  for (const type of ['RenderDegraded', 'NodeDegraded', 'Degraded', 'Updated', 'Updating']) if (chance(0.5)) conditions.push(condition(type));
  if (chance(0.1) && conditions.length > 0) conditions.push({ ...pick(conditions), status: 'True', reason: 'second', message: 'duplicate type' });
  for (let i = conditions.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [conditions[i], conditions[j]] = [conditions[j]!, conditions[i]!];
  }

  const pool: MachineConfigPool = { metadata: { name: poolName }, spec: {}, status: {} };
  const spec = configuration();
  if (spec) pool.spec.configuration = spec;
  if (!chance(0.05)) {
    const status = configuration();
    if (status) pool.status!.configuration = status;
    pool.status!.machineCount = rng.int(0, 5);
    pool.status!.updatedMachineCount = rng.int(0, 5);
    pool.status!.readyMachineCount = rng.int(0, 5);
    if (conditions.length > 0) pool.status!.conditions = conditions;
  } else {
    delete pool.status;
  }

  const annotated = (present: number, value: () => string): string | undefined => (chance(present) ? value() : undefined);
  const machineConfigs: MachineConfig[] = [];
  const statusName = pool.status?.configuration?.name;
  for (const name of new Set([renderedName, 'rendered-other-cccc', ...sourceNames])) {
    if (chance(name === statusName ? 0.05 : 0.08)) continue; // missing from the cluster
    const annotations: Record<string, string> = {};
    const isRendered = name.startsWith('rendered-');
    const controller = annotated(isRendered ? 0.92 : name.startsWith('0') ? 0.8 : 0.15, () => (chance(0.85) ? version : pick(['v1', 'cad20f7101719838aaa87c066430987303500fa6', ''])));
    if (controller !== undefined) annotations[ANN.generatedByControllerVersion] = controller;
    if (isRendered) {
      const release = annotated(0.9, () => (chance(0.8) ? releaseVersion : pick(['rv1', '4.11.0', ''])));
      if (release !== undefined) annotations[ANN.releaseImageVersion] = release;
      if (chance(0.35)) annotations[ANN.osImageUrlOverridden] = pick(['true', 'false', '']);
    }
    const mc: MachineConfig = { metadata: { name }, spec: {} };
    if (Object.keys(annotations).length > 0) mc.metadata.annotations = annotations;
    if (isRendered) mc.spec.osImageURL = chance(0.6) ? osURL : pick(['', 'quay.io/user/custom:latest', 'wrongurl']);
    machineConfigs.push(mc);
  }
  return { pool, machineConfigs, version, releaseVersion, osURL };
}

/** The reference's answer: the error text, or null when the pool counts as rolled out. */
export function referencePoolAnswer(c: PoolCase, commit: UpstreamCommit): string | null {
  const byName = new Map(c.machineConfigs.map((mc) => [mc.metadata.name!, mc]));
  const error = isMachineConfigPoolConfigurationValid({
    pool: c.pool,
    controllerVersion: c.version,
    releaseVersion: c.releaseVersion,
    osImageURL: c.osURL,
    get: (name) => {
      const mc = byName.get(name);
      if (!mc) throw notFoundError(name);
      return mc;
    },
    skipOverriddenOsImage: commit.code.operator.skipsOverriddenOsImageCheck,
    lastConditionWins: commit.code.operator.lastPoolConditionWins,
  });
  return error ? error.message : null;
}

export interface PoolDifference {
  index: number;
  case: PoolCase;
  reference: string | null;
  upstream: unknown;
}

/** Every case through the oracle (one process per batch) and the reference; the cases whose texts differ. */
export async function comparePools(commit: UpstreamCommit, cases: readonly PoolCase[], batchSize = 2000): Promise<{ cases: number; errors: number; differences: PoolDifference[] }> {
  const differences: PoolDifference[] = [];
  let errors = 0;
  for (let start = 0; start < cases.length; start += batchSize) {
    const batch = cases.slice(start, start + batchSize);
    const answers = await runOracle<{ error?: string | null; inputError?: string; panic?: string }>(commit, 'pool-valid', batch);
    answers.forEach((answer, i) => {
      const reference = referencePoolAnswer(batch[i]!, commit);
      if (typeof answer.error === 'string') errors++;
      if (!('error' in answer) || answer.error !== reference) differences.push({ index: start + i, case: batch[i]!, reference, upstream: answer });
    });
  }
  return { cases: cases.length, errors, differences };
}
