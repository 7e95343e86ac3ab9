/**
 * A command on a node's host, as `oc debug node/N -- CMD` runs it, for machines without `oc`: the same temporary
 * namespace (`openshift-debug-*`, privileged), the same privileged pod `<node>-debug` bound to the node with the host's
 * root at /host, its log read once the container has ended, and pod and namespace deleted afterwards. On a real
 * cluster and on the reference alike it goes only through the API.
 */
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { classifyApiError } from '../lib/kube/errors.js';

const describeApiError = (error: unknown): string => classifyApiError(error).message;

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
}

/** `oc debug`'s pod name for a node: the name lowercased without the characters a DNS label refuses, then `-debug`. */
export function debugPodName(node: string): string {
  return `${node.toLowerCase().replace(/[^a-z0-9-]/g, '')}-debug`;
}

export async function runOnNode(kubeConfig: KubeConfig, node: string, command: string[], options: DebugOptions = {}): Promise<DebugResult> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const timeoutMs = options.timeoutMs ?? 300_000;
  // as `oc debug node/N` does: a node that does not exist is an error before anything is created
  await core.readNode({ name: node }).catch((e) => {
    throw new Error(`cannot debug node ${node}: ${describeApiError(e)}`);
  });
  const namespace = await createNamespace(core);
  try {
    const image = await toolsImage(kubeConfig);
    const name = debugPodName(node);
    await core.createNamespacedPod({ namespace, body: debugPod(name, node, image, command) }).catch((e) => {
      throw new Error(`cannot create debug pod ${namespace}/${name} on node ${node}: ${describeApiError(e)}`);
    });
    const pod = await waitForTermination(core, namespace, name, node, timeoutMs);
    const output = await core.readNamespacedPodLog({ name, namespace, container: CONTAINER }).catch((e) => {
      throw new Error(`cannot read the log of debug pod ${namespace}/${name}: ${describeApiError(e)}`);
    });
    const exitCode = pod.status?.containerStatuses?.find((c) => c.name === CONTAINER)?.state?.terminated?.exitCode ?? 0;
    return { output: String(output ?? ''), exitCode, pod: `${namespace}/${name}` };
  } finally {
    // like `oc debug`: the namespace goes, and with it the pod; a failure here must not hide the command's result
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  }
}

async function createNamespace(core: CoreV1Api): Promise<string> {
  const privileged = 'privileged';
  const ns = await core
    .createNamespace({
      body: {
        metadata: {
          generateName: 'openshift-debug-',
          labels: {
            'pod-security.kubernetes.io/enforce': privileged,
            'pod-security.kubernetes.io/audit': privileged,
            'pod-security.kubernetes.io/warn': privileged,
            'security.openshift.io/scc.podSecurityLabelSync': 'false',
          },
          annotations: { 'oc.openshift.io/command': 'oc debug', 'openshift.io/node-selector': '' },
        },
      },
    })
    .catch((e) => {
      throw new Error(`cannot create a temporary namespace openshift-debug-* for a debug pod: ${describeApiError(e)}`);
    });
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
async function waitForTermination(core: CoreV1Api, namespace: string, name: string, node: string, timeoutMs: number): Promise<V1Pod> {
  const deadline = Date.now() + timeoutMs;
  let last: V1Pod | undefined;
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    last = await core.readNamespacedPod({ name, namespace }).catch((e) => {
      throw new Error(`debug pod ${namespace}/${name} on node ${node} vanished: ${describeApiError(e)}`);
    });
    const state = last.status?.containerStatuses?.find((c) => c.name === CONTAINER)?.state;
    if (state?.terminated || last.status?.phase === 'Succeeded' || last.status?.phase === 'Failed') return last;
    if (Date.now() > deadline) {
      const waiting = state?.waiting ? `, container waiting: ${state.waiting.reason ?? ''} ${state.waiting.message ?? ''}`.trimEnd() : '';
      throw new Error(`debug pod ${namespace}/${name} on node ${node} did not finish within ${timeoutMs / 1000} s (phase ${last.status?.phase ?? 'unknown'}${waiting})`);
    }
    await new Promise((r) => setTimeout(r, delay));
  }
}
