/**
 * The verbs of the resource tree (../resource-path.ts says where in it a call points: a collection, an object, or an
 * object's subresource). The verbs of an object and of each subresource are tables: serving a new subresource is
 * one entry in SUBRESOURCES.
 */
import { DEFAULT_BODY_LIMIT, decodeBody, readBody } from '../../body.js';
import { errors } from '../../errors.js';
import { bodyMediaType, patchMediaType, type BodyMediaType, type PatchMediaType } from '../../media-types.js';
import { apiVersionOf, type ResourceType } from '../../resources.js';
import { table, wantsTable } from '../../table.js';
import type { Call, HttpContext } from '../context.js';
import { deleteOptions, includeObject, intParam, isWatch, selectors, writeOptions } from '../params.js';
import { resolveResourcePath, type ResourcePath } from '../resource-path.js';
import { objectJson, send, viewOf, warningHeaders } from '../respond.js';
import { servePodLog } from './pod-log.js';
import { serveTokenRequest } from './token-request.js';
import { serveWatch } from './watch.js';

type Verb = (ctx: HttpContext, call: Call, at: ResourcePath) => void | Promise<void>;
type Verbs = Partial<Record<string, Verb>>;

interface Subresource {
  /** Whether a kind has this subresource (others answer 404). */
  servedFor(rt: ResourceType): boolean;
  verbs: Verbs;
}

const OBJECT_VERBS: Verbs = { GET: getOrList, POST: create, PUT: update, PATCH: patch, DELETE: remove };

const SUBRESOURCES: Record<string, Subresource> = {
  status: { servedFor: (rt) => !!rt.statusSubresource, verbs: { GET: getOrList, PUT: update, PATCH: patch } },
  log: { servedFor: (rt) => rt.builtin && rt.group === '' && rt.plural === 'pods', verbs: { GET: servePodLog } },
  token: { servedFor: (rt) => rt.builtin && rt.group === '' && rt.plural === 'serviceaccounts', verbs: { POST: serveTokenRequest } },
};

export function isResourcePath({ segs }: Call): boolean {
  if (segs[0] === 'api') return segs.length > 2;
  if (segs[0] === 'apis') return segs.length > 3;
  return false;
}

export async function serveResource(ctx: HttpContext, call: Call): Promise<void> {
  const at = resolveResourcePath(ctx, call.segs);
  if (!at) throw errors.pathNotFound(call.path);
  let verbs = OBJECT_VERBS;
  if (at.subresource !== undefined) {
    const sub = Object.hasOwn(SUBRESOURCES, at.subresource) ? SUBRESOURCES[at.subresource]! : undefined;
    if (!sub?.servedFor(at.rt)) throw errors.pathNotFound(call.path);
    verbs = sub.verbs;
  }
  if (at.rt.namespaced && at.namespace === undefined && at.name !== undefined) throw errors.pathNotFound(call.path);
  const verb = Object.hasOwn(verbs, call.method) ? verbs[call.method] : undefined;
  if (!verb) throw errors.methodNotAllowed(call.method, call.path);
  await verb(ctx, call, at);
}

/**
 * The body of a create, update or patch, whose media type the caller checked before reading it (a 415 costs no
 * read, as on kube-apiserver).
 */
async function readDecoded(ctx: HttpContext, call: Call, type: BodyMediaType | PatchMediaType): Promise<unknown> {
  return decodeBody(await readBody(call.req, ctx.bodyLimit ?? DEFAULT_BODY_LIMIT), type);
}

/** DeleteOptions: read first, and negotiated only when there is a body (handlers/delete.go). */
async function readDeleteOptions(ctx: HttpContext, call: Call): Promise<unknown> {
  const raw = await readBody(call.req, ctx.bodyLimit ?? DEFAULT_BODY_LIMIT);
  return raw.length === 0 ? undefined : decodeBody(raw, bodyMediaType(call.req.headers['content-type']));
}

function getOrList(ctx: HttpContext, call: Call, at: ResourcePath): void {
  const { rt, namespace, name } = at;
  const q = call.query;
  const asTable = wantsTable(call.req.headers.accept);
  if (isWatch(q)) {
    // A watch on one object is a watch on its collection narrowed to its name.
    const fieldSelector = name === undefined ? q.get('fieldSelector') ?? undefined
      : [q.get('fieldSelector'), `metadata.name=${name}`].filter(Boolean).join(',');
    serveWatch(ctx, call, { rt, namespace, fieldSelector, asTable });
    return;
  }
  if (name !== undefined) {
    const stored = ctx.api.get(rt, namespace, name);
    if (asTable) send(call.res, 200, JSON.stringify(table(rt, [viewOf(rt, stored.obj)], ctx.now(), includeObject(q), { resourceVersion: stored.obj.metadata.resourceVersion })));
    else send(call.res, 200, objectJson(rt, stored));
    return;
  }
  const result = ctx.api.list(rt, namespace, { ...selectors(q), limit: intParam(q, 'limit'), continue: q.get('continue') ?? undefined });
  const meta: Record<string, unknown> = { resourceVersion: result.resourceVersion };
  if (result.continue) { meta.continue = result.continue; meta.remainingItemCount = result.remainingItemCount; }
  if (asTable) {
    send(call.res, 200, JSON.stringify(table(rt, result.items.map((s) => viewOf(rt, s.obj)), ctx.now(), includeObject(q), meta)));
    return;
  }
  // Built from the objects' cached JSON: a large LIST costs string joins, not serialisation.
  const head = JSON.stringify({ kind: rt.listKind, apiVersion: apiVersionOf(rt), metadata: meta }).slice(0, -1);
  send(call.res, 200, `${head},"items":[${result.items.map((s) => objectJson(rt, s)).join(',')}]}`);
}

async function create(ctx: HttpContext, call: Call, { rt, namespace, name }: ResourcePath): Promise<void> {
  if (name !== undefined) throw errors.methodNotAllowed(call.method, call.path);
  const body = await readDecoded(ctx, call, bodyMediaType(call.req.headers['content-type']));
  const warnings: string[] = [];
  const created = ctx.api.create(rt, namespace, body, writeOptions(call.query, warnings));
  send(call.res, 201, JSON.stringify(viewOf(rt, created)), warningHeaders(warnings));
}

async function update(ctx: HttpContext, call: Call, { rt, namespace, name, subresource }: ResourcePath): Promise<void> {
  if (name === undefined) throw errors.methodNotAllowed(call.method, call.path);
  const body = await readDecoded(ctx, call, bodyMediaType(call.req.headers['content-type']));
  const warnings: string[] = [];
  const updated = ctx.api.update(rt, namespace, name, body, writeOptions(call.query, warnings), subresource);
  send(call.res, 200, JSON.stringify(viewOf(rt, updated)), warningHeaders(warnings));
}

async function patch(ctx: HttpContext, call: Call, { rt, namespace, name, subresource }: ResourcePath): Promise<void> {
  if (name === undefined) throw errors.methodNotAllowed(call.method, call.path);
  const type = patchMediaType(call.req.headers['content-type'], rt.builtin);
  const body = await readDecoded(ctx, call, type);
  const warnings: string[] = [];
  const { obj, created } = ctx.api.patch(rt, namespace, name, type, body, writeOptions(call.query, warnings), subresource);
  send(call.res, created ? 201 : 200, JSON.stringify(viewOf(rt, obj)), warningHeaders(warnings));
}

async function remove(ctx: HttpContext, call: Call, { rt, namespace, name }: ResourcePath): Promise<void> {
  const opts = deleteOptions(call.query, await readDeleteOptions(ctx, call));
  if (name === undefined) {
    const deleted = ctx.api.deleteCollection(rt, namespace, { ...opts, ...selectors(call.query) });
    const list = { kind: rt.listKind, apiVersion: apiVersionOf(rt), metadata: { resourceVersion: String(ctx.api.store.resourceVersion) }, items: deleted.map((o) => viewOf(rt, o)) };
    send(call.res, 200, JSON.stringify(list));
    return;
  }
  const { obj, gone } = ctx.api.delete(rt, namespace, name, opts);
  // kube-apiserver warns where its default for the kind is not what a client expects (a Job's pods are kept)
  const warnings = rt.deleteWarning && !opts.propagationPolicy ? [rt.deleteWarning] : [];
  send(call.res, gone ? 200 : 202, JSON.stringify(viewOf(rt, obj)), warningHeaders(warnings));
}
