/**
 * Restarts of the components an upgrade depends on, as the event stream shows them: the kubelet's `Killing` and
 * `Started` events on the pods of the machine-config operator, controller and daemons, the CVO and the API server.
 * A real upgrade replaces most of them; the reference cluster posts the same events when it restarts a component.
 * The upgrade monitor records each as a point on the pod's timeline, so a report shows where in the rollout a component
 * went away.
 */
import type { CoreV1Event } from '@kubernetes/client-node';

/** Namespaces whose pods the upgrade of the report waits on. */
export const COMPONENT_NAMESPACES: ReadonlySet<string> = new Set(['openshift-machine-config-operator', 'openshift-cluster-version', 'openshift-kube-apiserver']);
const RESTART_REASONS: ReadonlySet<string> = new Set(['Killing', 'Started']);

export interface RestartSeen {
  namespace: string;
  pod: string;
  /** The event's reason: `Killing` or `Started`. */
  reason: string;
  /** e.g. `Stopping container machine-config-operator`. */
  message?: string;
}

/** The restart an event reports, if it reports one of a component's pods going down or coming up. */
export function restartOf(event: CoreV1Event): RestartSeen | undefined {
  const involved = event.involvedObject;
  if (involved?.kind !== 'Pod' || !RESTART_REASONS.has(event.reason ?? '')) return undefined;
  const namespace = involved.namespace ?? event.metadata?.namespace ?? '';
  if (!COMPONENT_NAMESPACES.has(namespace)) return undefined;
  return { namespace, pod: involved.name ?? '?', reason: event.reason!, ...(event.message ? { message: event.message } : {}) };
}

/**
 * Polls the events while an upgrade runs and reports each new restart once. Polling rather than watching: it rides
 * through an API server restart with nothing to resume, and events live long enough (an hour) for a slow poll to
 * catch them. The first list is the baseline: restarts from before the monitor started are not reported.
 */
export class RestartRecorder {
  private readonly seen = new Set<string>();
  private baseline = true;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** The poll under way, which a last look waits for. */
  private inFlight: Promise<void> = Promise.resolve();

  constructor(
    private readonly listEvents: () => Promise<CoreV1Event[]>,
    private readonly onRestart: (restart: RestartSeen, at: Date) => void,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    void this.poll();
  }

  /** Stops polling (a restart in the last interval before the stop is not reported: see `finish`). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /**
   * Stops polling after one last look, whose new restarts are reported at `at` (the end of what is recorded): on the
   * reference a whole upgrade can take less wall time than one interval, and its restarts would otherwise be missed.
   */
  async finish(at: Date): Promise<void> {
    if (this.stopped) return;
    clearTimeout(this.timer);
    await this.inFlight;
    if (this.stopped) return;
    this.stopped = true;
    await this.pollOnce(at, true).catch(() => undefined);
  }

  private async poll(): Promise<void> {
    if (this.stopped) return;
    // an API that does not answer now will answer a later poll: the events are still there
    this.inFlight = this.pollOnce().catch(() => undefined);
    await this.inFlight;
    if (!this.stopped) this.timer = setTimeout(() => void this.poll(), this.intervalMs);
  }

  private async pollOnce(at?: Date, last = false): Promise<void> {
    const events = await this.listEvents();
    if (this.stopped && !last) return;
    at ??= new Date();
    const fresh = events
      .filter((e) => {
        const key = `${e.metadata?.uid ?? e.metadata?.name}/${e.count ?? 1}`;
        if (this.seen.has(key)) return false;
        this.seen.add(key);
        return !this.baseline;
      })
      .sort((a, b) => eventTime(a) - eventTime(b));
    this.baseline = false;
    for (const event of fresh) {
      const restart = restartOf(event);
      if (restart) this.onRestart(restart, at);
    }
  }
}

function eventTime(event: CoreV1Event): number {
  const t = event.lastTimestamp ?? event.eventTime ?? event.firstTimestamp ?? event.metadata?.creationTimestamp;
  return t ? new Date(t as unknown as string).getTime() : 0;
}
