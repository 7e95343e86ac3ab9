/**
 * The log sink of each component: the reference's controllers log through ControllerContext.log(component, line);
 * those lines go, klog-formatted, into the log of the container that currently runs that component (the newest
 * running pod of its Deployment, or the daemon pod on that node), where `oc logs` reads them.
 */
import { klogLine, type LogSink } from './logs.js';
import type { ComponentName } from './components.js';

/** Controller log names (as passed to ctx.log) → the component that runs them and the Go file that would log. */
const SOURCES: Record<string, { component: ComponentName; source: string }> = {
  operator: { component: 'machine-config-operator', source: 'sync.go' },
  render: { component: 'machine-config-controller', source: 'render_controller.go' },
  template: { component: 'machine-config-controller', source: 'template_controller.go' },
  'node-controller': { component: 'machine-config-controller', source: 'node_controller.go' },
  cvo: { component: 'cluster-version-operator', source: 'sync_worker.go' },
  mcd: { component: 'machine-config-daemon', source: 'daemon.go' },
};

/** Key of one running instance: the component, and for the daemon the node it runs on. */
export function instanceKey(component: ComponentName, node: string): string {
  return component === 'machine-config-daemon' ? `${component}/${node}` : component;
}

export class ComponentLogs {
  /** Running containers per instance key, oldest first: the newest one does the work. */
  private readonly running = new Map<string, LogSink[]>();

  constructor(private readonly now: () => number) {}

  /** A container of `component` started on `node`; returns what to call when it stops. */
  attach(component: ComponentName, node: string, sink: LogSink): () => void {
    const key = instanceKey(component, node);
    const list = this.running.get(key) ?? [];
    list.push(sink);
    this.running.set(key, list);
    return () => {
      const now = (this.running.get(key) ?? []).filter((s) => s !== sink);
      if (now.length) this.running.set(key, now);
      else this.running.delete(key);
    };
  }

  /**
   * One controller log line. `logName` is what the controller passes to ctx.log: `operator`, `render`, ..., or
   * `mcd/<node>` for the daemon of one node. Lines of controllers with no component (client, informer) go nowhere.
   */
  write(logName: string, line: string): void {
    const [name, node = ''] = logName.split('/', 2) as [string, string?];
    const source = SOURCES[name];
    if (!source) return;
    const sinks = this.running.get(instanceKey(source.component, node));
    const sink = sinks?.[sinks.length - 1];
    if (!sink) return;
    sink.write(klogLine(this.now(), severityOf(line), source.source, line));
  }
}

function severityOf(line: string): 'I' | 'W' | 'E' {
  if (/^(error|failed)|\b(failed|error during|refusing)\b/i.test(line)) return 'E';
  if (/^warning\b/i.test(line)) return 'W';
  return 'I';
}
