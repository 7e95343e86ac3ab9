/**
 * Where in the resource tree a call points: /api/v1/... and /apis/G/V/..., optionally under namespaces/NS, down to a
 * collection, an object, or an object's subresource. Shared by the resource handlers and the subresource handlers
 * they dispatch to (pods/log), so neither has to import the other.
 */
import type { ResourceType } from '../resources.js';
import type { HttpContext } from './context.js';

export interface ResourcePath {
  rt: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** [api, v1 | apis, G, V] [namespaces, NS] resource [name [subresource]]; undefined when no served kind matches. */
export function resolveResourcePath(ctx: HttpContext, segs: string[]): ResourcePath | undefined {
  const [group, version, start] = segs[0] === 'api' ? ['', segs[1]!, 2] : [segs[1]!, segs[2]!, 3];
  let rest = segs.slice(start);
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3 && ctx.registry.get(group, version, rest[2]!)?.namespaced) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length > 3) return undefined;
  const rt = ctx.registry.get(group, version, rest[0]!);
  if (!rt) return undefined;
  return { rt, namespace, name: rest[1], subresource: rest[2] };
}
