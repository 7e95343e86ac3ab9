/** Pieces of the pod status a kubelet writes, shared by the stand-in's ways of running a pod (kubelet.ts, program-pod.ts). */
import { randomBytes } from 'node:crypto';

export interface ConditionState {
  initialized: boolean;
  ready: boolean;
  /** Why Ready and ContainersReady are False (ContainersNotReady, PodCompleted). */
  reason?: string;
  /** Containers not ready, named in Ready's message. */
  notReady?: string[];
  /** Init containers not done, named in Initialized's message when it is False. */
  notInitialized?: string[];
}

/** The pod's conditions, all stamped `at`, worded as the kubelet's status manager words them. */
export function conditions(at: string, s: ConditionState): Array<Record<string, unknown>> {
  const notReady = s.notReady?.length ? `containers with unready status: [${s.notReady.join(' ')}]` : undefined;
  const readyCond = (type: string) => (s.ready
    ? { type, status: 'True', lastProbeTime: null, lastTransitionTime: at }
    : { type, status: 'False', lastProbeTime: null, lastTransitionTime: at, reason: s.reason, ...(notReady ? { message: notReady } : {}) });
  const initialized = s.initialized || !s.notInitialized?.length
    ? { type: 'Initialized', status: s.initialized ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: at }
    : { type: 'Initialized', status: 'False', lastProbeTime: null, lastTransitionTime: at, reason: 'ContainersNotInitialized', message: `containers with incomplete status: [${s.notInitialized.join(' ')}]` };
  return [
    initialized,
    readyCond('Ready'),
    readyCond('ContainersReady'),
    { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: at },
  ];
}

export function containerId(): string {
  return `cri-o://${randomBytes(32).toString('hex')}`;
}
