/**
 * `as=Table` responses (meta.k8s.io/v1 Table): what `kubectl get` prints. Columns come from a CRD's
 * additionalPrinterColumns or from a built-in kind's definition; dates become ages ("5m", "3h2m") on the server,
 * as the real one does, measured against the server's clock.
 */
import { evaluate } from './jsonpath.js';
import { type KubeObject, type PrinterColumn, type ResourceType } from './resources.js';

/** Kubernetes' HumanDuration: the compact age format of `kubectl get`. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) { const s = seconds % 60; return s === 0 ? `${minutes}m` : `${minutes}m${s}s`; }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) { const m = minutes % 60; return m === 0 ? `${hours}h` : `${hours}h${m}m`; }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) { const h = hours % 24; return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`; }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) { const d = Math.floor(hours / 24) % 365; return d === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${d}d`; }
  return `${Math.floor(hours / 24 / 365)}y`;
}

function cellValue(col: PrinterColumn, obj: KubeObject, now: Date): unknown {
  let raw: unknown;
  if (col.value) raw = col.value(obj, now);
  else if (col.jsonPath) {
    const values = evaluate(col.jsonPath, obj);
    // Like the real server (apiextensions' tableconvertor takes results[0][0]): a column shows its first match only,
    // so an upgraded cluster's VERSION is the newest Completed entry of the history, not all of them.
    raw = values[0];
  }
  if (raw === undefined || raw === null) return null; // kubectl prints an empty cell, as for a real server
  if (col.type === 'date' && col.format !== 'date-time') {
    const t = Date.parse(String(raw));
    return Number.isNaN(t) ? '<unknown>' : humanDuration(now.getTime() - t);
  }
  if (typeof raw === 'object') return JSON.stringify(raw);
  if ((col.type === 'integer' || col.type === 'number') && typeof raw === 'string' && raw !== '' && !Number.isNaN(Number(raw))) return Number(raw);
  return raw;
}

export function columnDefinitions(rt: ResourceType): Array<Record<string, unknown>> {
  const name = { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: rt.nameColumnLast ? 1 : 0 };
  const rest = rt.columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 }));
  return rt.nameColumnLast ? [...rest, name] : [name, ...rest];
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function tableRow(rt: ResourceType, obj: KubeObject, now: Date, include: IncludeObject): Record<string, unknown> {
  const cells = rt.columns.map((c) => cellValue(c, obj, now));
  const row: Record<string, unknown> = { cells: rt.nameColumnLast ? [...cells, obj.metadata.name] : [obj.metadata.name, ...cells] };
  if (include === 'Object') row.object = obj;
  else if (include === 'Metadata') {
    row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
  }
  return row;
}

export function table(rt: ResourceType, objects: KubeObject[], now: Date, include: IncludeObject, listMeta: Record<string, unknown>, withColumns = true): Record<string, unknown> {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: withColumns ? columnDefinitions(rt) : null,
    rows: objects.map((o) => tableRow(rt, o, now, include)),
  };
}

/** Whether an Accept header asks for a Table (kubectl get asks `application/json;as=Table;v=v1;g=meta.k8s.io,...`). */
export function wantsTable(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => /;\s*as=Table/.test(part) && /;\s*g=meta\.k8s\.io/.test(part) && /;\s*v=v1(;|$|\s)/.test(part + ';'));
}
