/**
 * The reference's job controller (kube-controller-manager's pkg/controller/job), for what the cluster runs as Jobs:
 * one pod at a time (parallelism 1, completions 1, restartPolicy Never), as an on-cluster image build's Job is.
 *   - A Job without a running pod and not finished gets a pod `<job>-<5 letters>` from its template, with the Job's
 *     labels (the API server put them on the template) and a controller ownerReference, bound to a node as the
 *     replica-set code binds its pods (scheduling.ts).
 *   - Status: startTime at the first sync, `active` and `ready` while a pod runs, `succeeded` / `failed` counted from
 *     the pods that ended.
 *   - A pod that Succeeded: SuccessCriteriaMet then Complete (reason CompletionsReached) and completionTime, as kube
 *     1.31+ writes them (the interim condition first; both in one write once no pod is active).
 *   - A pod that Failed: a new pod after a backoff of 10 s doubling per failure (capped at 10 minutes, cluster time)
 *     from the failed pod's end; once failures exceed backoffLimit, FailureTarget then Failed with reason
 *     BackoffLimitExceeded ("Job has reached the specified backoff limit"), no completionTime.
 * Left out: parallelism and completions above 1, indexed jobs, pod failure and success policies, suspend,
 * activeDeadlineSeconds, TTL after finished, and the batch.kubernetes.io/job-tracking finalizer on pods (counts are
 * read from the pods themselves, never lowered, so a counted pod deleted later is still counted).
 */
import type { V1Job, V1JobCondition, V1Node, V1Pod } from '@kubernetes/client-node';
import type { Controller, ControllerContext } from '../context.js';
import type { KubeObject } from '../../lib/kube/client.js';
import type { Informer } from '../../lib/kube/informer.js';
import { chooseNode } from './scheduling.js';

type Job = V1Job & KubeObject;
type Pod = V1Pod & KubeObject;
type Node = V1Node & KubeObject;

/** kube's DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff (pkg/controller/job/job_controller.go). */
export const POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_POD_FAILURE_BACKOFF_MS = 10 * 60_000;

const COMPLETIONS_REACHED = { reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };
const BACKOFF_LIMIT_EXCEEDED = { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };

const key = (o: KubeObject): string => `${o.metadata.namespace}/${o.metadata.name}`;

function isTrue(job: Job, type: string): boolean {
  return (job.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

function finished(job: Job): boolean {
  return isTrue(job, 'Complete') || isTrue(job, 'Failed');
}

function podReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** When a pod that failed ended: its containers' last finishedAt, else its creation (a pod that never started). */
function endedAtMs(pod: Pod): number {
  const states = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const ends = states.map((s) => Date.parse(String(s.state?.terminated?.finishedAt ?? ''))).filter((t) => !Number.isNaN(t));
  return ends.length ? Math.max(...ends) : Date.parse(String(pod.metadata.creationTimestamp ?? '')) || 0;
}

/** The wait before the next pod after `failures` failures: 10 s, doubling, at most 10 minutes. */
export function podFailureBackoffMs(failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(MAX_POD_FAILURE_BACKOFF_MS, POD_FAILURE_BACKOFF_MS * 2 ** (failures - 1));
}

export class JobController implements Controller {
  private jobs!: Informer<Job>;
  private pods!: Informer<Pod>;
  private nodes!: Informer<Node>;
  private readonly queue = new Set<string>();
  private running?: Promise<void>;
  /** Pods created whose creation the cache does not show yet (the real controller's expectations): no second pod. */
  private readonly created = new Map<string, Pod>();
  /** Jobs with a requeue pending at the end of their backoff. */
  private readonly waiting = new Set<string>();
  /** Uids of Jobs whose end this controller has posted (the cache may show the old status for one more sync). */
  private readonly posted = new Set<string>();

  constructor(private readonly ctx: ControllerContext) {}

  setup(): void {
    this.jobs = this.ctx.informers.for<Job>('Job');
    this.pods = this.ctx.informers.for<Pod>('Pod');
    this.nodes = this.ctx.informers.for<Node>('Node');
    this.jobs.onChange((type, job) => { if (type !== 'delete') this.enqueue(key(job)); });
    this.pods.onChange((_type, pod) => {
      const owner = pod.metadata.ownerReferences?.find((r) => r.controller && r.kind === 'Job' && r.apiVersion === 'batch/v1');
      if (owner) this.enqueue(`${pod.metadata.namespace}/${owner.name}`);
    });
  }

  start(): void {
    for (const job of this.jobs.list()) this.enqueue(key(job));
  }

  async stop(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  private enqueue(jobKey: string): void {
    if (this.ctx.signal.aborted) return;
    this.queue.add(jobKey);
    if (!this.running) this.running = this.ctx.clock.busyDuring(() => this.drain()).finally(() => { this.running = undefined; });
  }

  private async drain(): Promise<void> {
    for (let next = this.queue.values().next(); !next.done && !this.ctx.signal.aborted; next = this.queue.values().next()) {
      this.queue.delete(next.value);
      const [namespace, name] = next.value.split('/') as [string, string];
      const job = this.jobs.get(name, namespace);
      if (!job) continue;
      try {
        await this.sync(job);
      } catch (error) {
        if (this.ctx.signal.aborted) return;
        this.ctx.log('job-controller', `sync of job ${next.value} failed: ${(error as Error).message}`);
        this.requeueAfter(next.value, 1_000);
      }
    }
  }

  /** Looks at the Job again after `clusterMs` (its backoff): a timer on the cluster clock, not work while it waits. */
  private requeueAfter(jobKey: string, clusterMs: number): void {
    if (this.waiting.has(jobKey)) return;
    this.waiting.add(jobKey);
    void this.ctx.clock.outsideWork(() => this.ctx.clock.sleep(clusterMs, this.ctx.signal)).then(
      () => { this.waiting.delete(jobKey); this.enqueue(jobKey); },
      () => this.waiting.delete(jobKey),
    );
  }

  private podsOf(job: Job): Pod[] {
    const fromCache = this.pods.list().filter((p) => (p.metadata.ownerReferences ?? []).some((r) => r.uid === job.metadata.uid && r.controller));
    const seen = new Set(fromCache.map(key));
    for (const [k, pod] of [...this.created]) {
      if (seen.has(k)) this.created.delete(k);
      else if (pod.metadata.ownerReferences?.[0]?.uid === job.metadata.uid) fromCache.push(pod);
    }
    return fromCache;
  }

  private async sync(job: Job): Promise<void> {
    if (finished(job)) return;
    const now = this.ctx.clock.timestamp();
    const pods = this.podsOf(job);
    const active = pods.filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && !p.metadata.deletionTimestamp);
    const failedPods = pods.filter((p) => p.status?.phase === 'Failed');
    const succeeded = Math.max(job.status?.succeeded ?? 0, pods.filter((p) => p.status?.phase === 'Succeeded').length);
    const failed = Math.max(job.status?.failed ?? 0, failedPods.length);
    const completions = job.spec?.completions ?? 1;
    const backoffLimit = job.spec?.backoffLimit ?? 6;

    const conditions: V1JobCondition[] = [...(job.status?.conditions ?? [])];
    const add = (type: string, why: { reason: string; message: string }): void => {
      if (!conditions.some((c) => c.type === type)) conditions.push({ type, status: 'True', lastProbeTime: now as never, lastTransitionTime: now as never, ...why });
    };
    let completionTime: string | undefined;
    if (succeeded >= completions) {
      add('SuccessCriteriaMet', COMPLETIONS_REACHED);
      if (!active.length) {
        add('Complete', COMPLETIONS_REACHED);
        completionTime = now;
      }
    } else if (failed > backoffLimit) {
      add('FailureTarget', BACKOFF_LIMIT_EXCEEDED);
      for (const pod of active) await this.ctx.client.delete('Pod', pod.metadata.name!, pod.metadata.namespace);
      if (!active.length) add('Failed', BACKOFF_LIMIT_EXCEEDED);
    } else if (!active.length) {
      const lastEnd = Math.max(0, ...failedPods.map(endedAtMs));
      const wait = failed ? lastEnd + podFailureBackoffMs(failed) - this.ctx.clock.nowMs() : 0;
      if (wait > 0) this.requeueAfter(key(job), wait);
      else {
        const pod = await this.createPod(job, pods);
        if (pod) active.push(pod);
      }
    }

    const status: Record<string, unknown> = {
      startTime: job.status?.startTime ?? now,
      active: active.length || null,
      ready: active.filter(podReady).length,
      terminating: 0,
      succeeded: succeeded || null,
      failed: failed || null,
      uncountedTerminatedPods: {},
      conditions: conditions.length ? conditions : null,
      ...(completionTime ? { completionTime } : {}),
    };
    await this.writeStatus(job, status);
    await this.recordFinish(job, conditions);
  }

  private async createPod(job: Job, pods: Pod[]): Promise<Pod | undefined> {
    const template = job.spec?.template;
    const node = chooseNode(this.nodes.list(), template?.spec, (n) => pods.filter((p) => p.spec?.nodeName === n.metadata.name).length);
    if (!node) {
      this.ctx.log('job-controller', `job ${key(job)}: no schedulable node fits its pod; looking again in a minute`);
      this.requeueAfter(key(job), 60_000);
      return undefined;
    }
    const pod = await this.ctx.client.create<Pod>('Pod', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        generateName: `${job.metadata.name}-`,
        namespace: job.metadata.namespace,
        labels: { ...(template?.metadata?.labels ?? {}) },
        annotations: { ...(template?.metadata?.annotations ?? {}) },
        ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: job.metadata.name!, uid: job.metadata.uid!, controller: true, blockOwnerDeletion: true }],
      },
      spec: { ...(template?.spec ?? { containers: [] }), nodeName: node.metadata.name },
    } as Pod);
    this.created.set(key(pod), pod);
    await this.ctx.client.event({ kind: 'Job', name: job.metadata.name!, namespace: job.metadata.namespace, uid: job.metadata.uid, apiVersion: 'batch/v1' }, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`, 'job-controller', this.ctx.clock.timestamp());
    return pod;
  }

  /** The events kube's controller posts when a Job ends: Completed, or BackoffLimitExceeded as a warning. */
  private async recordFinish(job: Job, conditions: V1JobCondition[]): Promise<void> {
    const ended = conditions.find((c) => c.type === 'Complete' || c.type === 'Failed');
    if (!ended || this.posted.has(job.metadata.uid!)) return;
    this.posted.add(job.metadata.uid!);
    const ref = { kind: 'Job', name: job.metadata.name!, namespace: job.metadata.namespace, uid: job.metadata.uid, apiVersion: 'batch/v1' };
    const now = this.ctx.clock.timestamp();
    if (ended.type === 'Complete') await this.ctx.client.event(ref, 'Normal', 'Completed', 'Job completed', 'job-controller', now);
    else await this.ctx.client.event(ref, 'Warning', BACKOFF_LIMIT_EXCEEDED.reason, BACKOFF_LIMIT_EXCEEDED.message, 'job-controller', now);
  }

  private async writeStatus(job: Job, status: Record<string, unknown>): Promise<void> {
    const current = (job.status ?? {}) as Record<string, unknown>;
    const changed = Object.entries(status).some(([k, v]) => JSON.stringify(current[k] ?? null) !== JSON.stringify(v ?? null));
    if (!changed) return;
    await this.ctx.client.patchStatus('Job', job.metadata.name!, status, job.metadata.namespace).catch((e) => {
      if ((e as { status?: number }).status !== 404) throw e;
    });
  }
}
