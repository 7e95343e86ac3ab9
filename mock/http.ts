/**
 * The HTTP face of the server: authentication, fault injection, routing of Kubernetes API paths to the verbs,
 * content negotiation (JSON or Table), watch streams and Status errors. Nothing here knows any particular kind.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Api, type DeleteOptions, type FieldValidation, type WriteOptions } from './api.js';
import { DEFAULT_BODY_LIMIT, decodeBody, mediaType, readBody } from './body.js';
import { Discovery, SERVER_VERSION } from './discovery.js';
import type { OpenApi } from './openapi.js';
import { ApiError, errors } from './errors.js';
import type { Faults } from './faults.js';
import { apiVersionOf, type KubeObject, type ResourceRegistry, type ResourceType } from './resources.js';
import type { StoreEvent, StoredObject, WatchEventType } from './store.js';
import { table, tableRow, columnDefinitions, wantsTable, type IncludeObject } from './table.js';

export interface HttpContext {
  api: Api;
  registry: ResourceRegistry;
  discovery: Discovery;
  openapi: OpenApi;
  faults: Faults;
  token: string;
  now: () => Date;
  bodyLimit?: number;
  /** How often watches that asked for bookmarks get one. */
  bookmarkIntervalMs: number;
  /** Open watch responses, ended when the server closes. */
  watches: Set<ServerResponse>;
  serverAddress: () => string;
}

interface Route {
  group: string;
  version: string;
  rt: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
}

const JSON_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' };

function send(res: ServerResponse, code: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) { res.end(); return; }
  res.writeHead(code, { ...JSON_HEADERS, ...headers, 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}

function sendError(res: ServerResponse, err: ApiError): void {
  send(res, err.code, JSON.stringify(err.toStatus()), err.headers);
}

function authorized(req: IncomingMessage, expected: Buffer): boolean {
  const header = req.headers.authorization ?? '';
  const m = /^Bearer\s+(.+)$/i.exec(header);
  if (!m) return false;
  const given = Buffer.from(m[1]!.trim());
  return given.length === expected.length && timingSafeEqual(given as unknown as Uint8Array, expected as unknown as Uint8Array);
}

/** JSON of a stored object as seen through one served version; cached when that is the storage version. */
function objectJson(rt: ResourceType, stored: StoredObject): string {
  const apiVersion = apiVersionOf(rt);
  if (stored.obj.apiVersion === apiVersion) return (stored.json ??= JSON.stringify(stored.obj));
  return JSON.stringify({ ...stored.obj, apiVersion });
}

function viewOf(rt: ResourceType, obj: KubeObject): KubeObject {
  const apiVersion = apiVersionOf(rt);
  return obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion };
}

/** A discovery document: /api, /apis, /apis/G, or the resource list of /api/v1 and /apis/G/V. */
type DiscoveryRoute =
  | { discovery: 'core-versions' }
  | { discovery: 'groups' }
  | { discovery: 'group'; group: string }
  | { discovery: 'resources'; group: string; version: string };

function parseRoute(ctx: HttpContext, segs: string[]): Route | DiscoveryRoute | undefined {
  let group: string, version: string, rest: string[];
  if (segs[0] === 'api') {
    if (segs.length === 1) return { discovery: 'core-versions' };
    group = ''; version = segs[1]!; rest = segs.slice(2);
  } else if (segs[0] === 'apis') {
    if (segs.length === 1) return { discovery: 'groups' };
    if (segs.length === 2) return { discovery: 'group', group: segs[1]! };
    group = segs[1]!; version = segs[2]!; rest = segs.slice(3);
  } else return undefined;
  if (rest.length === 0) return { discovery: 'resources', group, version };
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const inner = ctx.registry.get(group, version, rest[2]!);
    if (inner?.namespaced) { namespace = rest[1]; rest = rest.slice(2); }
  }
  if (rest.length > 3) return undefined;
  const rt = ctx.registry.get(group, version, rest[0]!);
  if (!rt) return undefined;
  return { group, version, rt, namespace, name: rest[1], subresource: rest[2] };
}

function includeObject(q: URLSearchParams): IncludeObject {
  const v = q.get('includeObject');
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}

function writeOptions(q: URLSearchParams, warnings: string[]): WriteOptions {
  const dryRun = q.getAll('dryRun');
  if (dryRun.some((d) => d !== 'All')) throw errors.badRequest(`dryRun: Unsupported value: ${JSON.stringify(dryRun.find((d) => d !== 'All'))}: supported values: "All"`);
  const fv = q.get('fieldValidation') ?? 'Ignore';
  if (!['Strict', 'Warn', 'Ignore'].includes(fv)) throw errors.badRequest(`fieldValidation: Unsupported value: ${JSON.stringify(fv)}: supported values: "Ignore", "Strict", "Warn"`);
  return {
    dryRun: dryRun.length > 0,
    fieldValidation: fv as FieldValidation,
    fieldManager: q.get('fieldManager') ?? undefined,
    force: q.get('force') === 'true',
    warnings,
  };
}

function warningHeaders(warnings: string[]): Record<string, string> {
  if (!warnings.length) return {};
  // One header with comma-separated warn-values, as RFC 7234 allows.
  return { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(', ') };
}

function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw errors.badRequest(`${name}: invalid value ${JSON.stringify(v)}: must be a non-negative integer`);
  return n;
}

export function createRequestHandler(ctx: HttpContext): (req: IncomingMessage, res: ServerResponse) => void {
  const expectedToken = Buffer.from(ctx.token);
  return (req, res) => {
    handle(ctx, expectedToken, req, res).catch((err) => {
      if (err instanceof ApiError) sendError(res, err);
      else sendError(res, errors.internal((err as Error)?.message ?? String(err)));
    });
  };
}

async function handle(ctx: HttpContext, token: Buffer, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // Split by hand: new URL() on every request costs more than the rest of a GET.
  const rawUrl = req.url ?? '/';
  const qmark = rawUrl.indexOf('?');
  const path = qmark < 0 ? rawUrl : rawUrl.slice(0, qmark);
  const q = new URLSearchParams(qmark < 0 ? '' : rawUrl.slice(qmark + 1));
  if (path === '/healthz' || path === '/readyz' || path === '/livez') {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('ok');
    return;
  }
  if (!authorized(req, token)) throw errors.unauthorized();

  if (ctx.faults.active) {
    const delay = ctx.faults.delayMs(path);
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    switch (ctx.faults.decide(path)) {
      case 'reset': req.socket.destroy(); return;
      case '429': throw errors.tooManyRequests(ctx.faults.retryAfterSeconds);
      case '500': throw errors.internal('injected fault');
      default: break;
    }
  }

  let segs: string[];
  try {
    segs = path.split('/').filter((s) => s.length > 0).map(decodeURIComponent);
  } catch {
    throw errors.badRequest('malformed path escape');
  }
  if (path === '/version' || path === '/version/') { send(res, 200, JSON.stringify(SERVER_VERSION)); return; }
  if (segs[0] === 'openapi') {
    if (segs[1] !== 'v3') throw errors.pathNotFound(path);
    const doc = segs.length === 2 ? ctx.openapi.indexDocument() : ctx.openapi.document(segs.slice(2).join('/'));
    if (!doc) throw errors.pathNotFound(path);
    send(res, 200, doc);
    return;
  }

  const route = parseRoute(ctx, segs);
  if (!route) throw errors.pathNotFound(path);
  if ('discovery' in route) {
    if (req.method !== 'GET') throw errors.methodNotAllowed(req.method ?? '', path);
    const doc = route.discovery === 'core-versions' ? ctx.discovery.coreVersions(ctx.serverAddress())
      : route.discovery === 'groups' ? ctx.discovery.groupList()
        : route.discovery === 'group' ? ctx.discovery.groupDoc(route.group)
          : ctx.discovery.resourceList(route.group, route.version);
    if (doc === undefined) throw errors.pathNotFound(path);
    send(res, 200, doc);
    return;
  }
  const { rt, namespace, name, subresource } = route;
  if (subresource !== undefined && subresource !== 'status') throw errors.pathNotFound(path);
  if (subresource === 'status' && !rt.statusSubresource) throw errors.pathNotFound(path);
  if (rt.namespaced && namespace === undefined && name !== undefined) throw errors.pathNotFound(path);
  const method = req.method ?? 'GET';
  const asTable = wantsTable(req.headers.accept);

  const readJsonBody = async () => decodeBody(await readBody(req, ctx.bodyLimit ?? DEFAULT_BODY_LIMIT), req.headers['content-type'] ?? 'application/json');

  if (method === 'GET') {
    if (name !== undefined) {
      if (q.get('watch') === 'true' || q.get('watch') === '1') {
        const fs = [q.get('fieldSelector'), `metadata.name=${name}`].filter(Boolean).join(',');
        serveWatch(ctx, rt, namespace, q, fs, asTable, req, res);
        return;
      }
      const stored = ctx.api.get(rt, namespace, name);
      if (asTable) send(res, 200, JSON.stringify(table(rt, [viewOf(rt, stored.obj)], ctx.now(), includeObject(q), { resourceVersion: stored.obj.metadata.resourceVersion })));
      else send(res, 200, objectJson(rt, stored));
      return;
    }
    if (q.get('watch') === 'true' || q.get('watch') === '1') {
      serveWatch(ctx, rt, namespace, q, q.get('fieldSelector') ?? undefined, asTable, req, res);
      return;
    }
    const result = ctx.api.list(rt, namespace, {
      labelSelector: q.get('labelSelector') ?? undefined, fieldSelector: q.get('fieldSelector') ?? undefined,
      limit: intParam(q, 'limit'), continue: q.get('continue') ?? undefined,
    });
    const meta: Record<string, unknown> = { resourceVersion: result.resourceVersion };
    if (result.continue) { meta.continue = result.continue; meta.remainingItemCount = result.remainingItemCount; }
    if (asTable) {
      send(res, 200, JSON.stringify(table(rt, result.items.map((s) => viewOf(rt, s.obj)), ctx.now(), includeObject(q), meta)));
      return;
    }
    // Built from the objects' cached JSON: a large LIST costs string joins, not serialisation.
    const head = JSON.stringify({ kind: rt.listKind, apiVersion: apiVersionOf(rt), metadata: meta }).slice(0, -1);
    send(res, 200, `${head},"items":[${result.items.map((s) => objectJson(rt, s)).join(',')}]}`);
    return;
  }

  const warnings: string[] = [];
  if (method === 'POST') {
    if (name !== undefined) throw errors.methodNotAllowed(method, path);
    const body = await readJsonBody();
    const created = ctx.api.create(rt, namespace, body, writeOptions(q, warnings));
    send(res, 201, JSON.stringify(viewOf(rt, created)), warningHeaders(warnings));
    return;
  }
  if (method === 'PUT') {
    if (name === undefined) throw errors.methodNotAllowed(method, path);
    const body = await readJsonBody();
    const updated = ctx.api.update(rt, namespace, name, body, writeOptions(q, warnings), subresource);
    send(res, 200, JSON.stringify(viewOf(rt, updated)), warningHeaders(warnings));
    return;
  }
  if (method === 'PATCH') {
    if (name === undefined) throw errors.methodNotAllowed(method, path);
    const type = mediaType(req.headers['content-type']);
    if (!['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'].includes(type)) {
      throw errors.unsupportedMediaType(type || '(none)');
    }
    const body = await readJsonBody();
    const { obj, created } = ctx.api.patch(rt, namespace, name, type, body, writeOptions(q, warnings), subresource);
    send(res, created ? 201 : 200, JSON.stringify(viewOf(rt, obj)), warningHeaders(warnings));
    return;
  }
  if (method === 'DELETE') {
    if (subresource) throw errors.methodNotAllowed(method, path);
    const body = await readJsonBody();
    const opts = deleteOptions(q, body);
    if (name === undefined) {
      const deleted = ctx.api.deleteCollection(rt, namespace, {
        ...opts, labelSelector: q.get('labelSelector') ?? undefined, fieldSelector: q.get('fieldSelector') ?? undefined,
      });
      send(res, 200, JSON.stringify({ kind: rt.listKind, apiVersion: apiVersionOf(rt), metadata: { resourceVersion: String(ctx.api.store.resourceVersion) }, items: deleted.map((o) => viewOf(rt, o)) }));
      return;
    }
    const { obj, gone } = ctx.api.delete(rt, namespace, name, opts);
    send(res, gone ? 200 : 202, JSON.stringify(viewOf(rt, obj)));
    return;
  }
  throw errors.methodNotAllowed(method, path);
}

function deleteOptions(q: URLSearchParams, body: unknown): DeleteOptions {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, any>;
  const policy = q.get('propagationPolicy') ?? b.propagationPolicy;
  if (policy !== undefined && !['Orphan', 'Background', 'Foreground'].includes(policy)) {
    throw errors.badRequest(`propagationPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan"`);
  }
  const orphan = q.get('orphanDependents') ?? b.orphanDependents;
  const dryRun = [...q.getAll('dryRun'), ...(Array.isArray(b.dryRun) ? b.dryRun : [])];
  if (dryRun.some((d) => d !== 'All')) throw errors.badRequest('dryRun: Unsupported value: supported values: "All"');
  return {
    dryRun: dryRun.length > 0,
    propagationPolicy: policy ?? (orphan === true || orphan === 'true' ? 'Orphan' : undefined),
    preconditions: b.preconditions,
  };
}

/** A held-open watch stream: backlog from the requested resourceVersion, then live events, until timeout or close. */
function serveWatch(ctx: HttpContext, rt: ResourceType, namespace: string | undefined, q: URLSearchParams, fieldSelector: string | undefined,
  asTable: boolean, req: IncomingMessage, res: ServerResponse): void {
  const match = ctx.api.matcher(rt, { labelSelector: q.get('labelSelector') ?? undefined, fieldSelector });
  const timeoutSeconds = intParam(q, 'timeoutSeconds');
  const rvParam = q.get('resourceVersion') ?? '';
  const fromRv = rvParam === '' || rvParam === '0' ? undefined : Number(rvParam);
  if (fromRv !== undefined && (!Number.isInteger(fromRv) || fromRv < 0)) throw errors.badRequest(`invalid resource version: ${JSON.stringify(rvParam)}`);
  const bookmarks = q.get('allowWatchBookmarks') === 'true';
  const include = includeObject(q);
  const apiVersion = apiVersionOf(rt);
  const inScope = (o: KubeObject) => !rt.namespaced || namespace === undefined || o.metadata.namespace === namespace;

  res.writeHead(200, { ...JSON_HEADERS, 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  ctx.watches.add(res);

  let headerSent = false;
  const line = (type: WatchEventType | 'BOOKMARK' | 'ERROR', stored: StoredObject | undefined, raw?: unknown): void => {
    let payload: string;
    if (raw !== undefined) payload = JSON.stringify({ type, object: raw });
    else if (asTable) {
      const t = { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: stored!.obj.metadata.resourceVersion },
        columnDefinitions: headerSent ? [] : columnDefinitions(rt), rows: [tableRow(rt, viewOf(rt, stored!.obj), ctx.now(), include)] };
      headerSent = true;
      payload = JSON.stringify({ type, object: t });
    } else payload = `{"type":"${type}","object":${objectJson(rt, stored!)}}`;
    // A client that stops reading would make us buffer without bound; drop it as the real server does.
    if (res.writableLength > 32 * 1024 * 1024) { finish(); return; }
    res.write(payload + '\n');
  };

  const onEvent = (ev: StoreEvent) => {
    const obj = ev.stored.obj;
    if (!inScope(obj)) return;
    const now = match(obj);
    const before = ev.prev ? match(ev.prev.obj) : false;
    let type: WatchEventType | undefined = ev.type;
    if (ev.type === 'MODIFIED') type = now && before ? 'MODIFIED' : now ? 'ADDED' : before ? 'DELETED' : undefined;
    else if (!now) type = undefined;
    if (type) line(type, ev.stored);
  };

  const timers: NodeJS.Timeout[] = [];
  let unsubscribe = () => {};
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    unsubscribe();
    for (const t of timers) { clearTimeout(t); clearInterval(t); }
    ctx.watches.delete(res);
    res.end();
  };
  res.on('close', finish);
  res.on('finish', finish);
  req.on('close', () => { if (!res.writableEnded) finish(); });

  if (fromRv === undefined) {
    for (const s of ctx.api.store.list(rt.storageKey, rt.namespaced ? namespace : undefined)) if (match(s.obj)) line('ADDED', s);
    if (q.get('sendInitialEvents') === 'true' && bookmarks) {
      line('BOOKMARK', undefined, { kind: rt.kind, apiVersion, metadata: { resourceVersion: String(ctx.api.store.resourceVersion), annotations: { 'k8s.io/initial-events-end': 'true' } } });
    }
  } else {
    const backlog = ctx.api.store.eventsSince(rt.storageKey, fromRv);
    if (!backlog) {
      const oldest = ctx.api.store.oldestResumableVersion;
      line('ERROR', undefined, errors.gone(`too old resource version: ${fromRv} (${oldest})`).toStatus());
      finish();
      return;
    }
    for (const ev of backlog) onEvent(ev);
  }
  unsubscribe = ctx.api.store.subscribe(rt.storageKey, onEvent, finish);

  if (timeoutSeconds) timers.push(setTimeout(finish, timeoutSeconds * 1000));
  const cut = ctx.faults.watchCutMs;
  if (cut > 0) timers.push(setTimeout(finish, cut));
  if (bookmarks) {
    const interval = setInterval(() => {
      line('BOOKMARK', undefined, { kind: rt.kind, apiVersion, metadata: { resourceVersion: String(ctx.api.store.resourceVersion) } });
    }, ctx.bookmarkIntervalMs);
    timers.push(interval as unknown as NodeJS.Timeout);
  }
}
