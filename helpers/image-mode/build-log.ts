/**
 * A build's own words: the log of container image-build of the pods of Job build-<mosb> (the initContainer that runs
 * buildah upstream, the engine on the reference), read through pods/log as `oc logs job/build-<mosb> -c image-build`
 * shows it, and the step it failed in (`STEP 7/12: RUN …` from buildah, `Step 7/12 : RUN …` from dockerd). A pod is
 * the Job's when the Job controls it (ownerReferences) or carries its job-name label.
 */
import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { classifyApiError } from '../../lib/kube/errors.js';
import { withRetry } from '../../lib/kube/retry.js';
import { stepHeading } from '../../lib/oci/build.js';
import { MCO_NAMESPACE } from './types.js';

export const BUILD_CONTAINER = 'image-build';

export interface BuildPodLog {
  pod: string;
  phase: string;
  /** The image-build container's log, or why it could not be read (a line starting `#`). */
  log: string;
}

export function podOfJob(pod: V1Pod, job: string): boolean {
  const labels = pod.metadata?.labels ?? {};
  if (labels['job-name'] === job || labels['batch.kubernetes.io/job-name'] === job) return true;
  return (pod.metadata?.ownerReferences ?? []).some((o) => o.kind === 'Job' && o.name === job);
}

/** The logs of every pod of the Job (oldest first: the last is the last attempt), `tailLines` each. */
export async function readBuildLogs(kubeConfig: KubeConfig, job: string, tailLines = 400): Promise<BuildPodLog[]> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const pods = await withRetry(`list pods -n ${MCO_NAMESPACE}`, () => core.listNamespacedPod({ namespace: MCO_NAMESPACE })).catch((e: unknown) => {
    throw new Error(`list pods -n ${MCO_NAMESPACE}: ${classifyApiError(e).message}`);
  });
  const mine = pods.items.filter((p) => podOfJob(p, job)).sort((a, b) => String(a.metadata?.creationTimestamp ?? '').localeCompare(String(b.metadata?.creationTimestamp ?? '')));
  const out: BuildPodLog[] = [];
  for (const pod of mine) {
    const name = pod.metadata?.name ?? '?';
    const log = await withRetry(`logs of pod/${name} -c ${BUILD_CONTAINER}`, () => core.readNamespacedPodLog({ name, namespace: MCO_NAMESPACE, container: BUILD_CONTAINER, tailLines }))
      .then((t) => String(t ?? ''))
      .catch((e: unknown) => `# logs of pod/${name} container ${BUILD_CONTAINER}: ${classifyApiError(e).message}\n`);
    out.push({ pod: name, phase: pod.status?.phase ?? 'Unknown', log });
  }
  return out;
}

export interface FailedStep {
  /** `Step 7/12 : RUN …`, or undefined when the log names no step (the build did not get to one). */
  step?: string;
  /** The last lines of the log, the error among them. */
  lastLines: string[];
}

/** The step a build log ends in and its last lines. */
export function failedStepOf(log: string, lines = 8): FailedStep {
  const all = log.split('\n').filter((l) => l.trim() !== '');
  let step: string | undefined;
  for (const line of all) step = stepHeading(line.trim()) ?? step;
  return { step, lastLines: all.slice(-lines) };
}
