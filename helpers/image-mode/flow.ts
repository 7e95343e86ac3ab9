/**
 * The image-mode steps a spec composes, each an Allure step: put a pool in image mode (its push secret and its
 * MachineOSConfig, each recorded in the ledger with its undo), and wait for a build of the pool's rendered config and
 * its roll-out to every node. What the steps change, the ledger undoes newest first: the MachineOSConfig (the pool
 * goes back to the release image), then the push secret.
 */
import type { KubeObject } from '../../lib/kube/client.js';
import type { FlowSession } from '../flows.js';
import { buildCredentials } from '../credentials.js';
import type { LedgerEntry } from '../ledger.js';
import { attachText, attachYaml, parameter, step } from '../report.js';
import { machineOSConfigObject } from './machine-os-config.js';
import { pushCredentialsFor, pushSecretObject } from './push-secret.js';
import { imageModePushTarget } from './push-target.js';
import { otherThan, waitForMachineOSBuild } from './build-wait.js';
import { waitForImageRollout } from './rollout-waits.js';
import { MCO_NAMESPACE, type ImageModeConfig, type MachineOSBuild } from './types.js';

export interface ImageModePool {
  pool: string;
  /** The MachineOSConfig's name (the pool's). */
  machineOSConfig: string;
  pushSpec: string;
  pushSecret: string;
}

/**
 * The ledger entry of each MachineOSConfig this process made, so a spec can leave image mode as its own step (the
 * handle stays plain data: a split run's phases pass it on as values).
 */
const configEntries = new WeakMap<ImageModePool, LedgerEntry>();

/** The push secret's name for a pool (one per pool, so two specs' pools never share one). */
export const pushSecretName = (pool: string): string => `ocp-e2e-push-${pool}`.slice(0, 253);

/** Creates the pool's push secret (where the suite makes it) and its MachineOSConfig. */
export async function putPoolInImageMode(session: FlowSession, asked: { pool: string; caseId: string; containerfile: string }): Promise<ImageModePool> {
  return step(`put pool ${asked.pool} in on-cluster image mode (MachineOSConfig ${asked.pool})`, async () => {
    const target = await imageModePushTarget(session.cluster, session.target, session.caps, asked.caseId);
    await parameter('push target', `${target.pushSpec} (${target.source})`);
    let pushSecret: string;
    if (target.secret === 'from run credentials') {
      pushSecret = pushSecretName(asked.pool);
      const credentials = pushCredentialsFor(await buildCredentials(session.cluster, session.access), target.pushSpec);
      await session.cluster.client.create('Secret', pushSecretObject(pushSecret, credentials, session.target.runId));
      session.ledger.record({ kind: 'Secret', namespace: MCO_NAMESPACE, name: pushSecret });
    } else {
      pushSecret = target.secret.existing;
    }
    const mosc = machineOSConfigObject({ pool: asked.pool, containerfile: asked.containerfile, pushSpec: target.pushSpec, pushSecret, runId: session.target.runId });
    await session.cluster.client.create('MachineOSConfig', mosc);
    const entry = session.ledger.record({ kind: 'MachineOSConfig', name: asked.pool, pool: asked.pool });
    await attachYaml(`machineosconfig-${asked.pool}.yaml`, mosc);
    const mode: ImageModePool = { pool: asked.pool, machineOSConfig: asked.pool, pushSpec: target.pushSpec, pushSecret };
    configEntries.set(mode, entry);
    return mode;
  });
}

/**
 * Deletes the pool's MachineOSConfig now and waits until the pool is back on its rendered config's OS image (the
 * ledger's own undo, run as the spec's step: afterwards the cleanup has nothing left to do for it).
 */
export async function leaveImageMode(session: FlowSession, mode: ImageModePool): Promise<void> {
  const entry = configEntries.get(mode);
  if (!entry) throw new Error(`MachineOSConfig ${mode.machineOSConfig} is not this process's to delete (in a split run, the phase that made it deletes it)`);
  await entry.undoNow((description, body) => step(description, body, session.waits.caps));
}

export interface RolledOutBuild {
  build: MachineOSBuild;
  /** The build's image by digest: what every node of the pool boots. */
  image: string;
  /** The rendered config the build is of. */
  rendered: string;
}

/**
 * Waits for the build of the pool's rendered config (a new one: not any of `excluding`, named or, for a build made
 * again under the same name, by uid) and for every node of the pool to run it.
 */
export async function buildAndRollOut(session: FlowSession, mode: ImageModePool, excluding: readonly string[] = [], excludingUids: readonly string[] = []): Promise<RolledOutBuild> {
  const wanted = { pool: mode.pool, machineOSConfig: mode.machineOSConfig, excluding, excludingUids };
  const build = await step(`wait for the MachineOSBuild of pool ${mode.pool}${otherThan(wanted)} to succeed`, () =>
    waitForMachineOSBuild(session.cluster, session.cluster.kubeConfig, session.waits, wanted), session.waits.caps);
  const image = build.status?.digestedImagePushSpec;
  const rendered = build.spec?.machineConfig?.name ?? '';
  if (!image) throw new Error(`machineosbuild/${build.metadata.name} Succeeded without status.digestedImagePushSpec: the suite cannot tell which image the pool's nodes must boot`);
  await attachYaml(`machineosbuild-${build.metadata.name}.yaml`, build);
  await attachText('built image', image);
  await step(`wait until every node of pool ${mode.pool} runs ${image}`, () => waitForImageRollout(session.waits, mode.pool, rendered, image), session.waits.caps);
  return { build, image, rendered };
}

/** The pool's MachineOSConfig as the cluster has it now. */
export function readMachineOSConfig(session: FlowSession, name: string): Promise<ImageModeConfig> {
  return session.cluster.client.read<ImageModeConfig & KubeObject>('MachineOSConfig', name);
}
