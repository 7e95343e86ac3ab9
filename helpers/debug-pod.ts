/**
 * A command on a node's host, as `oc debug node/N -- CMD` runs it, for machines without `oc`: the same temporary
 * namespace (`openshift-debug-*`, privileged), the same privileged pod `<node>-debug` bound to the node with the host's
 * root at /host, its log read once the container has ended, and pod and namespace deleted afterwards. On a real
 * cluster and on the reference alike it goes only through the API, every call under the project's one retry policy
 * (lib/kube/retry.ts): a passing 429, 5xx or dropped connection must not fail the read of a healthy node.
 */
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { isConflict } from '../lib/kube/errors.js';
import { withRetry, type RetryOptions } from '../lib/kube/retry.js';

export interface DebugResult {
  /** The container's log: what the command printed, stdout and stderr interleaved. */
  output: string;
  exitCode: number;
  /** `<namespace>/<pod>` of the debug pod (both are gone when runOnNode returns). */
  pod: string;
}

/** What `oc debug` falls back to when the cluster has no `openshift/tools` image stream. */
const FALLBACK_IMAGE = 'registry.redhat.io/rhel8/support-tools';
const CONTAINER = 'container-00';

export interface DebugOptions {
  /** How long the pod may take to run to completion. */
  timeoutMs?: number;
  /** Adjusts the retry policy of the pod's API calls (tests count retries with onRetry). */
  retry?: Pick<RetryOptions, 'attempts' | 'baseDelayMs' | 'onRetry'>;
  /** More labels on the temporary namespace: the run's id, so that the leak check finds one whose delete failed. */
  labels?: Record<string, string>;
}

/**
 * One API call under the retry policy; when it gives up, `failed` words the error (with the API's own message) as
 * each step of the debug pod states it.
 */
function retried<T>(what: string, call: () => Promise<T>, failed: (apiMessage: string) => string, retry: DebugOptions['retry']): Promise<T> {
  return withRetry(what, call, { ...retry, errorFor: (_what, failure) => new Error(failed(failure.message)) });
}

/** `oc debug`'s pod name for a node: the name lowercased without the characters a DNS label refuses, then `-debug`. */
export function debugPodName(node: string): string {
  return `${node.toLowerCase().replace(/[^a-z0-9-]/g, '')}-debug`;
}

export async function runOnNode(kubeConfig: KubeConfig, node: string, command: string[], options: DebugOptions = {}): Promise<DebugResult> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const timeoutMs = options.timeoutMs ?? 300_000;
  const retry = options.retry;
  // as `oc debug node/N` does: a node that does not exist is an error before anything is created
  await retried(`read Node ${node}`, () => core.readNode({ name: node }), (m) => `cannot debug node ${node}: ${m}`, retry);
  const namespace = await createNamespace(core, retry, options.labels ?? {});
  try {
    const image = await toolsImage(kubeConfig);
    const name = debugPodName(node);
    let tries = 0;
    await retried(
      `create Pod ${namespace}/${name}`,
      // a create the server carried out but whose answer was lost is there when tried again: that is success
      () => core.createNamespacedPod({ namespace, body: debugPod(name, node, image, command) }).catch((e) => {
        if (tries++ > 0 && isConflict(e)) return undefined;
        throw e;
      }),
      (m) => `cannot create debug pod ${namespace}/${name} on node ${node}: ${m}`,
      retry,
    );
    const pod = await waitForTermination(core, namespace, name, node, timeoutMs, retry);
    const output = await retried(
      `read the log of Pod ${namespace}/${name}`,
      () => core.readNamespacedPodLog({ name, namespace, container: CONTAINER }),
      (m) => `cannot read the log of debug pod ${namespace}/${name}: ${m}`,
      retry,
    );
    const exitCode = pod.status?.containerStatuses?.find((c) => c.name === CONTAINER)?.state?.terminated?.exitCode ?? 0;
    return { output: String(output ?? ''), exitCode, pod: `${namespace}/${name}` };
  } finally {
    // like `oc debug`: the namespace goes, and with it the pod; a failure here must not hide the command's result
    await retried(`delete Namespace ${namespace}`, () => core.deleteNamespace({ name: namespace }), (m) => m, retry).catch(() => undefined);
  }
}

async function createNamespace(core: CoreV1Api, retry: DebugOptions['retry'], labels: Record<string, string>): Promise<string> {
  const privileged = 'privileged';
  // generateName: a create whose answer was lost leaves a namespace no one deletes; a 5xx the server answered did not
  const ns = await retried('create Namespace openshift-debug-*', () => core
    .createNamespace({
      body: {
        metadata: {
          generateName: 'openshift-debug-',
          labels: {
            ...labels,
            'pod-security.kubernetes.io/enforce': privileged,
            'pod-security.kubernetes.io/audit': privileged,
            'pod-security.kubernetes.io/warn': privileged,
            'security.openshift.io/scc.podSecurityLabelSync': 'false',
          },
          annotations: { 'oc.openshift.io/command': 'oc debug', 'openshift.io/node-selector': '' },
        },
      },
    }), (m) => `cannot create a temporary namespace openshift-debug-* for a debug pod: ${m}`, retry);
  return ns.metadata!.name!;
}

/** The image `oc debug node` uses: the `openshift/tools:latest` image stream's, else Red Hat's support-tools. */
async function toolsImage(kubeConfig: KubeConfig): Promise<string> {
  try {
    const stream = (await kubeConfig.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({ group: 'image.openshift.io', version: 'v1', namespace: 'openshift', plural: 'imagestreams', name: 'tools' })) as {
      status?: { tags?: Array<{ tag: string; items?: Array<{ dockerImageReference?: string }> }> };
    };
    return stream.status?.tags?.find((t) => t.tag === 'latest')?.items?.[0]?.dockerImageReference ?? FALLBACK_IMAGE;
  } catch {
    return FALLBACK_IMAGE;
  }
}

function debugPod(name: string, node: string, image: string, command: string[]): V1Pod {
  return {
    metadata: { name, annotations: { 'debug.openshift.io/source-resource': `/v1, Resource=nodes/${node}`, 'debug.openshift.io/source-container': CONTAINER } },
    spec: {
      nodeName: node,
      hostNetwork: true,
      hostPID: true,
      hostIPC: true,
      restartPolicy: 'Never',
      priorityClassName: 'openshift-user-critical',
      volumes: [{ name: 'host', hostPath: { path: '/', type: 'Directory' } }],
      containers: [
        {
          name: CONTAINER,
          image,
          command,
          securityContext: { privileged: true, runAsUser: 0 },
          volumeMounts: [{ name: 'host', mountPath: '/host' }],
          stdin: false,
          tty: false,
        },
      ],
    },
  };
}

/** Polls until the container has terminated; a timeout says what the pod last showed. */
async function waitForTermination(core: CoreV1Api, namespace: string, name: string, node: string, timeoutMs: number, retry: DebugOptions['retry']): Promise<V1Pod> {
  const deadline = Date.now() + timeoutMs;
  let last: V1Pod | undefined;
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    last = await retried(`read Pod ${namespace}/${name}`, () => core.readNamespacedPod({ name, namespace }), (m) => `debug pod ${namespace}/${name} on node ${node} vanished: ${m}`, retry);
    const state = last.status?.containerStatuses?.find((c) => c.name === CONTAINER)?.state;
    if (state?.terminated || last.status?.phase === 'Succeeded' || last.status?.phase === 'Failed') return last;
    if (Date.now() > deadline) {
      const waiting = state?.waiting ? `, container waiting: ${state.waiting.reason ?? ''} ${state.waiting.message ?? ''}`.trimEnd() : '';
      throw new Error(`debug pod ${namespace}/${name} on node ${node} did not finish within ${timeoutMs / 1000} s (phase ${last.status?.phase ?? 'unknown'}${waiting})`);
    }
    await new Promise((r) => setTimeout(r, delay));
  }
}
