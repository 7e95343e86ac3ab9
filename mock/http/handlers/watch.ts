/**
 * A held-open watch stream: the backlog from the requested resourceVersion (or the current objects), then live
 * events, until a timeout, an injected cut, a slow reader or the client going away.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from '../../errors.js';
import { apiVersionOf, type KubeObject, type ResourceType } from '../../resources.js';
import type { StoreEvent, StoredObject, WatchEventType } from '../../store.js';
import { columnDefinitions, tableRow, type IncludeObject } from '../../table.js';
import type { Call, HttpContext } from '../context.js';
import { includeObject, intParam } from '../params.js';
import { JSON_HEADERS, objectJson, viewOf } from '../respond.js';

export interface WatchTarget {
  rt: ResourceType;
  namespace?: string;
  fieldSelector?: string;
  asTable: boolean;
}

interface WatchOptions {
  timeoutSeconds?: number;
  /** Resume after this resourceVersion; absent: start with the current objects. */
  fromRv?: number;
  bookmarks: boolean;
  sendInitialEvents: boolean;
  include: IncludeObject;
}

/** A client that stops reading would make us buffer without bound; drop it as the real server does. */
const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;

export function serveWatch(ctx: HttpContext, call: Call, target: WatchTarget): void {
  const { rt, namespace } = target;
  // Everything that can refuse the request runs before the 200 goes out.
  const match = ctx.api.matcher(rt, { labelSelector: call.query.get('labelSelector') ?? undefined, fieldSelector: target.fieldSelector });
  const opts = watchOptions(call.query);
  const stream = new WatchStream(ctx, call.req, call.res);
  const encode = eventEncoder(ctx, target, opts.include);
  const emit = (type: WatchEventType, stored: StoredObject) => stream.write(encode(type, stored));
  const inScope = (o: KubeObject) => !rt.namespaced || namespace === undefined || o.metadata.namespace === namespace;
  const onEvent = (ev: StoreEvent) => {
    if (!inScope(ev.stored.obj)) return;
    const type = typeSeenThroughSelector(ev, match);
    if (type) emit(type, ev.stored);
  };

  if (opts.fromRv === undefined) {
    for (const s of ctx.api.store.list(rt.storageKey, rt.namespaced ? namespace : undefined)) if (match(s.obj)) emit('ADDED', s);
    if (opts.sendInitialEvents && opts.bookmarks) stream.write(bookmark(ctx, rt, { 'k8s.io/initial-events-end': 'true' }));
  } else {
    const backlog = ctx.api.store.eventsSince(rt.storageKey, opts.fromRv);
    if (!backlog) {
      const expired = errors.gone(`too old resource version: ${opts.fromRv} (${ctx.api.store.oldestResumableVersion})`);
      stream.write(JSON.stringify({ type: 'ERROR', object: expired.toStatus() }));
      stream.finish();
      return;
    }
    for (const ev of backlog) onEvent(ev);
  }
  stream.follow(ctx.api.store.subscribe(rt.storageKey, onEvent, () => stream.finish()));

  if (opts.timeoutSeconds) stream.endAfter(opts.timeoutSeconds * 1000);
  if (ctx.faults.watchCutMs > 0) stream.endAfter(ctx.faults.watchCutMs);
  if (opts.bookmarks) stream.every(ctx.bookmarkIntervalMs, () => stream.write(bookmark(ctx, rt)));
}

function watchOptions(q: URLSearchParams): WatchOptions {
  const timeoutSeconds = intParam(q, 'timeoutSeconds');
  const rvParam = q.get('resourceVersion') ?? '';
  const fromRv = rvParam === '' || rvParam === '0' ? undefined : Number(rvParam);
  if (fromRv !== undefined && (!Number.isInteger(fromRv) || fromRv < 0)) throw errors.badRequest(`invalid resource version: ${JSON.stringify(rvParam)}`);
  return {
    timeoutSeconds,
    fromRv,
    bookmarks: q.get('allowWatchBookmarks') === 'true',
    sendInitialEvents: q.get('sendInitialEvents') === 'true',
    include: includeObject(q),
  };
}

/** An edit that moves an object into or out of the selector is, to this watcher, an ADDED or a DELETED. */
function typeSeenThroughSelector(ev: StoreEvent, match: (o: KubeObject) => boolean): WatchEventType | undefined {
  const now = match(ev.stored.obj);
  if (ev.type !== 'MODIFIED') return now ? ev.type : undefined;
  const before = ev.prev ? match(ev.prev.obj) : false;
  return now && before ? 'MODIFIED' : now ? 'ADDED' : before ? 'DELETED' : undefined;
}

/** One event line: the object as JSON, or as a Table row (column definitions only in the first). */
function eventEncoder(ctx: HttpContext, { rt, asTable }: WatchTarget, include: IncludeObject): (type: WatchEventType, stored: StoredObject) => string {
  if (!asTable) return (type, stored) => `{"type":"${type}","object":${objectJson(rt, stored)}}`;
  let headerSent = false;
  return (type, stored) => {
    const t = {
      kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: stored.obj.metadata.resourceVersion },
      columnDefinitions: headerSent ? [] : columnDefinitions(rt), rows: [tableRow(rt, viewOf(rt, stored.obj), ctx.now(), include)],
    };
    headerSent = true;
    return JSON.stringify({ type, object: t });
  };
}

function bookmark(ctx: HttpContext, rt: ResourceType, annotations?: Record<string, string>): string {
  const metadata = { resourceVersion: String(ctx.api.store.resourceVersion), ...(annotations ? { annotations } : {}) };
  return JSON.stringify({ type: 'BOOKMARK', object: { kind: rt.kind, apiVersion: apiVersionOf(rt), metadata } });
}

/** The response side of a watch: chunked lines, and one way to end it that releases timers and the subscription. */
class WatchStream {
  private finished = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private unsubscribe = (): void => {};

  constructor(private readonly ctx: HttpContext, req: IncomingMessage, private readonly res: ServerResponse) {
    res.writeHead(200, { ...JSON_HEADERS, 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    ctx.watches.add(res);
    res.on('close', () => this.finish());
    res.on('finish', () => this.finish());
    req.on('close', () => { if (!res.writableEnded) this.finish(); });
  }

  write(line: string): void {
    // Ended from outside (dropWatches, close) before its 'finish' event unsubscribed it: writing would throw inside the
    // store's emit, failing the write that caused the event and keeping the event from every later subscriber.
    if (this.res.writableEnded) { this.finish(); return; }
    if (this.res.writableLength > MAX_BUFFERED_BYTES) { this.finish(); return; }
    this.res.write(line + '\n');
  }

  follow(unsubscribe: () => void): void {
    if (this.finished) unsubscribe();
    else this.unsubscribe = unsubscribe;
  }

  endAfter(ms: number): void {
    if (this.finished) return;
    this.timers.push(setTimeout(() => this.finish(), ms));
  }

  every(ms: number, tick: () => void): void {
    if (this.finished) return;
    this.timers.push(setInterval(tick, ms));
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.unsubscribe();
    for (const t of this.timers) { clearTimeout(t); clearInterval(t); }
    this.ctx.watches.delete(this.res);
    if (!this.res.writableEnded) this.res.end();
  }
}
