/**
 * The operator's MachineOSBuilder task (MCO release-4.20 pkg/operator/sync.go `syncMachineOSBuilder`,
 * `reconcileMachineOSBuilder`, `reconcileGlobalPullSecretCopy`, `getLayeredMachineConfigPools`; modern-mco.md §1.5):
 * while a pool has a MachineOSConfig the `machine-os-builder` Deployment runs (applied with the operator's release,
 * so an upgrade rolls it: OCPBUGS-56220's fix) and `global-pull-secret-copy` is kept a copy of
 * openshift-config/pull-secret; with none, both are deleted.
 */
import type { KubeClient, KubeObject } from '../../../lib/kube/client.js';
import { semanticEqual } from '../../equality.js';
import { MCO_NAMESPACE } from '../../constants.js';
import { machineOsBuilder, type Release } from '../../workloads/components.js';
import { GLOBAL_PULL_SECRET_COPY, MACHINE_OS_BUILDER } from './names.js';
import type { MachineOSConfig } from './types.js';

interface Secret extends KubeObject {
  data?: Record<string, string>;
  type?: string;
}
interface Deployment extends KubeObject {
  spec?: { template?: unknown };
}

/** The pools that have opted in: those a MachineOSConfig names. */
export function layeredPools(moscs: readonly MachineOSConfig[], poolNames: readonly string[]): string[] {
  const named = new Set(moscs.map((m) => m.spec.machineConfigPool.name));
  return poolNames.filter((p) => named.has(p));
}

/**
 * `keepsRunningBuilder` plays the code before OCPBUGS-56220's fix (MCO 3b58bc2ab, merged a12b62b80; 4.19 backport
 * OCPBUGS-57689, 4.18 OCPBUGS-58067): `reconcileMachineOSBuilder` applied the Deployment only when it was not running
 * or had the wrong replica count, so a running builder was never given the new release and kept the old one's code.
 */
export async function syncMachineOSBuilder(client: KubeClient, release: Release, layered: readonly string[], log: (line: string) => void, keepsRunningBuilder = false): Promise<void> {
  await reconcileGlobalPullSecretCopy(client, layered.length > 0, log);
  const want = machineOsBuilder(release).object as Deployment;
  const existing = await client.get<Deployment>('Deployment', MACHINE_OS_BUILDER, MCO_NAMESPACE);
  if (layered.length) {
    if (!existing) {
      log('Starting or Updating Machine OS Builder pod because MachineConfigPool(s) opted into layering');
      await client.create('Deployment', want);
    } else if (!keepsRunningBuilder && !semanticEqual(existing.spec?.template, want.spec?.template)) {
      log('Starting or Updating Machine OS Builder pod because MachineConfigPool(s) opted into layering');
      await client.patch('Deployment', MACHINE_OS_BUILDER, { spec: { template: want.spec?.template } }, MCO_NAMESPACE);
    }
    return;
  }
  if (existing) {
    log('Shutting down Machine OS Builder pod because no MachineConfigPool(s) opted into layering');
    await client.delete('Deployment', MACHINE_OS_BUILDER, MCO_NAMESPACE);
  }
}

async function reconcileGlobalPullSecretCopy(client: KubeClient, anyLayered: boolean, log: (line: string) => void): Promise<void> {
  const copy = await client.get<Secret>('Secret', GLOBAL_PULL_SECRET_COPY, MCO_NAMESPACE);
  if (!anyLayered) {
    if (copy) {
      log(`deleting ${GLOBAL_PULL_SECRET_COPY}`);
      await client.delete('Secret', GLOBAL_PULL_SECRET_COPY, MCO_NAMESPACE);
    }
    return;
  }
  const global = await client.get<Secret>('Secret', 'pull-secret', 'openshift-config');
  if (!global) throw new Error('error fetching cluster pull secret: secrets "pull-secret" not found');
  if (!copy) {
    log(`creating ${GLOBAL_PULL_SECRET_COPY}`);
    await client.create<Secret>('Secret', { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/dockerconfigjson', metadata: { name: GLOBAL_PULL_SECRET_COPY, namespace: MCO_NAMESPACE }, data: global.data } as Secret);
  } else if (!semanticEqual(copy.data, global.data)) {
    log(`updating ${GLOBAL_PULL_SECRET_COPY}`);
    await client.patch('Secret', GLOBAL_PULL_SECRET_COPY, { data: global.data }, MCO_NAMESPACE);
  }
}
