/**
 * What a failure in image mode is diagnosed from, beyond the MachineOSConfigs and MachineOSBuilds every failure keeps
 * (artifacts.ts): the build Jobs in openshift-machine-config-operator, the image-build log of each of their pods
 * (`oc logs job/build-<mosb> -c image-build`), and the build controller's log (the machine-os-builder Deployment's
 * pod). Nothing is returned where there is none (a release or cluster without image mode).
 */
import type { KubeObject } from '../../lib/kube/client.js';
import type { Cluster } from '../cluster.js';
import { readComponentLogs, type ComponentLogSpec } from '../pod-logs.js';
import { readBuildLogs } from './build-log.js';
import { MCO_NAMESPACE } from './types.js';

export const BUILDER_LOG: ComponentLogSpec = { name: 'machine-os-builder', namespace: MCO_NAMESPACE, labelSelector: 'k8s-app=machine-os-builder', container: 'machine-os-builder', tailLines: 2000 };

/** The build Jobs (`build-*`) in openshift-machine-config-operator. */
export async function buildJobs(cluster: Cluster): Promise<KubeObject[]> {
  return (await cluster.client.list<KubeObject>('Job', { namespace: MCO_NAMESPACE })).items.filter((j) => j.metadata.name?.startsWith('build-'));
}

/** Log files by name: one per build Job (`build-<mosb>.log`, every attempt's pod in turn) and the builder's. */
export async function imageModeLogs(cluster: Cluster): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const job of await buildJobs(cluster)) {
    const name = job.metadata.name!;
    const pods = await readBuildLogs(cluster.kubeConfig, name, 2000);
    out[`${name}.log`] = pods.length ? pods.map((p) => `# pod/${p.pod} (${p.phase}) container image-build\n${p.log}`).join('\n') : `# job ${name} has no pods left\n`;
  }
  const builder = await readComponentLogs(cluster.kubeConfig, BUILDER_LOG);
  if (!builder.startsWith('# no pods')) out['machine-os-builder.log'] = builder;
  return out;
}
