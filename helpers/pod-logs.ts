/**
 * A component's logs through the API (`pods/log`), as `oc logs -l <selector> -c <container> --tail=N --prefix` prints
 * them: every pod of the component, each line prefixed with `[pod/<name>/<container>]` when there are several pods.
 * The same on every target, with or without `oc` installed.
 */
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { classifyApiError } from '../lib/kube/errors.js';
import { withRetry } from '../lib/kube/retry.js';

export interface ComponentLogSpec {
  /** File name stem of the gathered log. */
  name: string;
  namespace: string;
  labelSelector: string;
  container: string;
  tailLines: number;
}

const MCO_NAMESPACE = 'openshift-machine-config-operator';

/** What an MCO failure is diagnosed from: the operator's syncs, the controller's renders, each daemon's updates. */
export const MCO_LOGS: ComponentLogSpec[] = [
  { name: 'machine-config-operator', namespace: MCO_NAMESPACE, labelSelector: 'k8s-app=machine-config-operator', container: 'machine-config-operator', tailLines: 2000 },
  { name: 'machine-config-controller', namespace: MCO_NAMESPACE, labelSelector: 'k8s-app=machine-config-controller', container: 'machine-config-controller', tailLines: 2000 },
  { name: 'machine-config-daemon', namespace: MCO_NAMESPACE, labelSelector: 'k8s-app=machine-config-daemon', container: 'machine-config-daemon', tailLines: 500 },
];

export async function readComponentLogs(kubeConfig: KubeConfig, spec: ComponentLogSpec): Promise<string> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const why = (e: unknown): string => classifyApiError(e).message;
  // under the one retry policy: a passing 5xx must not leave the report without the component's log
  const pods = await withRetry(`list pods -n ${spec.namespace} -l ${spec.labelSelector}`, () => core.listNamespacedPod({ namespace: spec.namespace, labelSelector: spec.labelSelector })).catch((e) => {
    throw new Error(`list pods -n ${spec.namespace} -l ${spec.labelSelector}: ${why(e)}`);
  });
  if (!pods.items.length) return `# no pods in ${spec.namespace} match ${spec.labelSelector}\n`;
  const prefix = pods.items.length > 1;
  const parts: string[] = [];
  for (const pod of pods.items) {
    const name = pod.metadata?.name ?? '?';
    const text = await withRetry(`logs of pod/${name}`, () => core.readNamespacedPodLog({ name, namespace: spec.namespace, container: spec.container, tailLines: spec.tailLines }))
      .then((t) => String(t ?? ''))
      .catch((e) => `# logs of pod/${name} container ${spec.container}: ${why(e)}\n`);
    parts.push(prefix ? text.split('\n').filter((l) => l !== '').map((l) => `[pod/${name}/${spec.container}] ${l}`).join('\n') + '\n' : text);
  }
  return parts.join('');
}

/** The machine-config daemon's log on one node (its pod there): where 4.16+ keep the error a node's reason drops. */
export async function readDaemonLogOn(kubeConfig: KubeConfig, nodeName: string, tailLines = 500): Promise<string> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const daemon = MCO_LOGS.find((l) => l.name === 'machine-config-daemon')!;
  const selector = `${daemon.labelSelector} on node ${nodeName}`;
  const pods = await withRetry(`list pods -n ${daemon.namespace} -l ${selector}`, () =>
    core.listNamespacedPod({ namespace: daemon.namespace, labelSelector: daemon.labelSelector, fieldSelector: `spec.nodeName=${nodeName}` }),
  ).catch((e) => {
    throw new Error(`list pods -n ${daemon.namespace} -l ${selector}: ${classifyApiError(e).message}`);
  });
  const pod = pods.items[0]?.metadata?.name;
  if (!pod) throw new Error(`no machine-config-daemon pod runs on node ${nodeName} (pods -n ${daemon.namespace} -l ${daemon.labelSelector})`);
  return withRetry(`logs of pod/${pod}`, () => core.readNamespacedPodLog({ name: pod, namespace: daemon.namespace, container: daemon.container, tailLines })).then((t) => String(t ?? ''));
}
