/**
 * The authorization attributes of an HTTP request, derived from its method, path and query alone, as
 * kube-apiserver's RequestInfoFactory does (before any kind is looked up, so a forbidden request to an unknown
 * resource is 403, not 404): /api/v1/... and /apis/G/V/... are resource requests, everything else (discovery
 * documents, /version, /openapi/...) is a non-resource path with the lower-cased method as its verb.
 */
import type { RequestAttributes } from './rules.js';

/** Namespace subresources: /api/v1/namespaces/NS/status is the namespace's status, not a resource named "status". */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

const VERB_OF_METHOD: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

export function requestAttributes(method: string, path: string, segs: string[], query: URLSearchParams): RequestAttributes {
  const nonResource: RequestAttributes = { kind: 'nonResource', verb: method.toLowerCase(), path };
  if (segs[0] !== 'api' && segs[0] !== 'apis') return nonResource;
  const grouped = segs[0] === 'apis';
  if (segs.length < (grouped ? 4 : 3)) return nonResource;
  const group = grouped ? segs[1]! : '';
  const version = grouped ? segs[2]! : segs[1]!;
  let parts = segs.slice(grouped ? 3 : 2);

  let namespace = '';
  if (parts[0] === 'namespaces' && parts.length > 1) {
    namespace = parts[1]!;
    if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2]!)) parts = parts.slice(2);
  }
  let verb = VERB_OF_METHOD[method] ?? '';
  const resource = parts[0] ?? '';
  let name = parts[1] ?? '';
  const subresource = parts[2] ?? '';

  const watch = query.get('watch') === 'true' || query.get('watch') === '1';
  if (verb === 'get' && name === '') {
    verb = watch ? 'watch' : 'list';
    name = nameFromFieldSelector(query.get('fieldSelector')) ?? '';
  } else if (verb === 'get' && watch && subresource === '') {
    // kube-apiserver serves no watch on an object's own path; this server does (a watch narrowed to the name), and
    // what it serves there is a watch, so that is what must be allowed.
    verb = 'watch';
  }
  if (verb === 'delete' && name === '') verb = 'deletecollection';
  return { kind: 'resource', verb, group, version, resource, subresource, namespace, name };
}

/** The name a list or watch is narrowed to by `metadata.name=X` (or `==`), as RBAC's resourceNames see it. */
function nameFromFieldSelector(selector: string | null): string | undefined {
  for (const term of (selector ?? '').split(',')) {
    const m = /^\s*metadata\.name\s*==?\s*([^\s=!]+)\s*$/.exec(term);
    if (m) return m[1];
  }
  return undefined;
}
