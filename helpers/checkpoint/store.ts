/**
 * Where checkpoints live: a ConfigMap per spec file in the suite's namespace (the copy another machine reads), and a
 * copy in `<reports>/checkpoints/` (what a CI job archives with its results).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Cluster } from '../cluster.js';
import { CHECKPOINT_NAMESPACE_LABEL, RunIdLabel } from '../types.js';
import { CHECKPOINT_KEY, CHECKPOINT_LABEL, CHECKPOINT_NAMESPACE, checkpointName, type Checkpoint } from './format.js';

/** A ConfigMap holds at most 1 MiB; the recorded timeline is the only part that can grow, so it is cut to its end. */
const MAX_TIMELINE_ENTRIES = 2000;

/** The checkpoint of a spec file, or undefined when there is none. Throws when it is there but cannot be read. */
export async function readCheckpoint(cluster: Cluster, specFile: string): Promise<Checkpoint | undefined> {
  const name = checkpointName(specFile);
  const cm = await cluster.getConfigMap(CHECKPOINT_NAMESPACE, name);
  if (!cm) return undefined;
  return parseCheckpoint(cm.data?.[CHECKPOINT_KEY], `configmap/${name} -n ${CHECKPOINT_NAMESPACE}`);
}

/** Every checkpoint on the cluster, by spec file. */
export async function listCheckpoints(cluster: Cluster): Promise<Map<string, Checkpoint>> {
  const out = new Map<string, Checkpoint>();
  for (const cm of await cluster.listConfigMaps(CHECKPOINT_NAMESPACE, CHECKPOINT_LABEL)) {
    const checkpoint = parseCheckpoint(cm.data?.[CHECKPOINT_KEY], `configmap/${cm.metadata?.name} -n ${CHECKPOINT_NAMESPACE}`);
    out.set(checkpoint.specFile, checkpoint);
  }
  return out;
}

function parseCheckpoint(text: string | undefined, where: string): Checkpoint {
  if (text === undefined) throw new Error(`${where} has no ${CHECKPOINT_KEY}: it is not a checkpoint of ocp-e2e; delete it with \`oc delete ${where}\``);
  try {
    const value = JSON.parse(text) as Checkpoint;
    if (typeof value !== 'object' || value === null || typeof value.specFile !== 'string' || typeof value.format !== 'number') throw new Error('fields are missing');
    return value;
  } catch (error) {
    throw new Error(`${where} is not a readable checkpoint (${(error as Error).message})`);
  }
}

export async function writeCheckpoint(cluster: Cluster, checkpoint: Checkpoint, reportsDir: string): Promise<string> {
  const name = checkpointName(checkpoint.specFile);
  const stored = cutTimeline(checkpoint);
  const text = JSON.stringify(stored, null, 2);
  await cluster.ensureNamespace(CHECKPOINT_NAMESPACE, { [CHECKPOINT_NAMESPACE_LABEL.key]: CHECKPOINT_NAMESPACE_LABEL.value });
  await cluster.writeConfigMap({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: CHECKPOINT_NAMESPACE, labels: { [CHECKPOINT_LABEL]: 'true', [RunIdLabel]: checkpoint.runId } },
    data: { [CHECKPOINT_KEY]: text },
  });
  await keepLocalCopy(reportsDir, stored);
  return `configmap/${name} -n ${CHECKPOINT_NAMESPACE}`;
}

/** The reports' copy: what a phase wrote or went on from, archived with its results. */
export async function keepLocalCopy(reportsDir: string, checkpoint: Checkpoint): Promise<void> {
  const dir = join(reportsDir, 'checkpoints');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${checkpointName(checkpoint.specFile)}.json`), `${JSON.stringify(checkpoint, null, 2)}\n`);
}

/** Deletes the cluster's copy (the reports' copy stays: it is the record of what the pipeline did). */
export async function deleteCheckpoint(cluster: Cluster, specFile: string): Promise<boolean> {
  return cluster.deleteConfigMap(CHECKPOINT_NAMESPACE, checkpointName(specFile));
}

/**
 * A ConfigMap holds at most 1 MiB: a long recording keeps its newest intervals, and always those it found when it
 * began (what the judges read as the state at the start, e.g. the master pool of an upgrade over before post began).
 */
function cutTimeline(checkpoint: Checkpoint): Checkpoint {
  const recording = checkpoint.upgrade?.recording;
  if (!recording || recording.timeline.length <= MAX_TIMELINE_ENTRIES) return checkpoint;
  const found = recording.timeline.filter((i) => i.found);
  const newest = recording.timeline.filter((i) => !i.found).slice(-Math.max(0, MAX_TIMELINE_ENTRIES - found.length));
  return { ...checkpoint, upgrade: { ...checkpoint.upgrade!, recording: { ...recording, timeline: [...found, ...newest] } } };
}
