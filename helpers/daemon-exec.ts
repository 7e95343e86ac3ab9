/**
 * A command on a node's host through the machine-config-daemon pod that already runs there: pods/exec into its
 * `machine-config-daemon` container, which mounts the host's root at /rootfs, and `chroot /rootfs CMD`. It is how the
 * MCO's own e2e helpers run a command on a node (ExecCmdOnNode: `oc rsh` into the node's daemon), and it costs one
 * API round trip where a debug pod costs a namespace, a pod, its start and its removal: on a real cluster seconds per
 * node, on the reference about a tenth of a second. The exec goes through client-node in this process, so no `oc`
 * starts either. Where no daemon runs on the node, or the exec cannot be made, the caller reads the node with a debug
 * pod instead (node-os.ts).
 */
import { PassThrough } from 'node:stream';
import { CoreV1Api, Exec, type KubeConfig, type V1Pod, type V1Status } from '@kubernetes/client-node';
import { withRetry } from '../lib/kube/retry.js';

export const DAEMON_NAMESPACE = 'openshift-machine-config-operator';
export const DAEMON_CONTAINER = 'machine-config-daemon';
const DAEMON_SELECTOR = 'k8s-app=machine-config-daemon';

export interface DaemonExecResult {
  /** What the command printed, stdout and stderr in the order they came. */
  output: string;
  exitCode: number;
  /** `<namespace>/<pod>` of the daemon the command ran in. */
  pod: string;
}

/**
 * The daemon pod of each node, for the nodes whose daemon container is running and ready: one list for a whole pool's
 * reads. A pod being deleted (the daemon set rolling during an upgrade) does not count: its exec could be cut.
 */
export async function daemonPodsByNode(kubeConfig: KubeConfig): Promise<Map<string, string>> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const list = await withRetry(`list Pods ${DAEMON_NAMESPACE} ${DAEMON_SELECTOR}`, () => core.listNamespacedPod({ namespace: DAEMON_NAMESPACE, labelSelector: DAEMON_SELECTOR }));
  const byNode = new Map<string, string>();
  for (const pod of list.items) {
    const node = pod.spec?.nodeName;
    if (node && pod.metadata?.name && daemonReady(pod)) byNode.set(node, pod.metadata.name);
  }
  return byNode;
}

function daemonReady(pod: V1Pod): boolean {
  if (pod.metadata?.deletionTimestamp || pod.status?.phase !== 'Running') return false;
  const status = pod.status.containerStatuses?.find((c) => c.name === DAEMON_CONTAINER);
  return Boolean(status?.ready && status.state?.running);
}

/** The exit code a pods/exec status reports: 0 for Success, the ExitCode cause of a NonZeroExitCode, else -1. */
export function execExitCode(status: V1Status): number {
  if (status.status === 'Success') return 0;
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
  const code = Number(cause?.message);
  return Number.isInteger(code) ? code : -1;
}

/**
 * Runs `command` in the daemon container of `pod`. Rejects when the exec cannot be made (refused, no such pod, the
 * connection lost before the command's status came) or takes longer than `timeoutMs`, naming the pod.
 */
export async function execInDaemon(kubeConfig: KubeConfig, pod: string, command: string[], timeoutMs = 120_000): Promise<DaemonExecResult> {
  const where = `${DAEMON_NAMESPACE}/${pod}`;
  const chunks: string[] = [];
  const collect = (): PassThrough => {
    const stream = new PassThrough();
    // decoded per stream, so a character split across two frames stays whole
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => chunks.push(chunk));
    return stream;
  };
  const stdout = collect();
  const stderr = collect();
  return new Promise<DaemonExecResult>((resolve, reject) => {
    let settled = false;
    let socket: { close(): void } | undefined;
    const finish = (error: Error | undefined, status?: V1Status) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        socket?.close();
        reject(error);
        return;
      }
      resolve({ output: chunks.join(''), exitCode: execExitCode(status!), pod: where });
    };
    const timer = setTimeout(() => finish(new Error(`exec in ${where} did not end within ${timeoutMs / 1000} s; it printed: ${chunks.join('').slice(-200) || '(nothing)'}`)), timeoutMs);
    new Exec(kubeConfig)
      .exec(DAEMON_NAMESPACE, pod, DAEMON_CONTAINER, command, stdout, stderr, null, false, (status) => finish(undefined, status))
      .then((ws) => {
        socket = ws;
        // a socket that closes without a status lost the command's end: its output cannot be trusted as whole
        ws.on('close', () => setImmediate(() => finish(new Error(`exec in ${where} was cut before the command's status came`))));
        if (settled) ws.close();
      })
      .catch((e: unknown) => finish(new Error(`cannot exec in ${where}: ${(e as Error).message ?? String(e)}`)));
  });
}
