/**
 * Which Content-Type a request body may have, per verb, as kube-apiserver decides it (k8s.io/apiserver
 * pkg/endpoints/handlers: create.go and update.go negotiate, patch.go checks the patch type first). Decided before
 * a byte of the body is read, so an unknown type costs the server nothing: POST of a 100,000-deep document as
 * `application/apply-patch+yaml` is a 415 here, as there, not a YAML parse.
 */
import { errors } from './errors.js';

/**
 * What a create, an update or a DeleteOptions body may be: the serializers of k8s.io/apimachinery's CodecFactory,
 * in its order (runtime/serializer/codec_factory.go). Custom resources list the same three
 * (apiextensions-apiserver pkg/apiserver/customresource_handler.go); CBOR joins both only behind the alpha
 * CBORServingAndStorage feature gate, off by default, so it is not accepted here either.
 */
export const BODY_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'] as const;

/** A patch of a built-in kind (k8s.io/apiserver pkg/endpoints/installer.go, the PATCH route's supportedTypes). */
export const BUILTIN_PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'] as const;

/** A patch of a custom resource: no strategic merge, which needs Go struct tags a CRD does not have. */
export const CUSTOM_RESOURCE_PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'] as const;

export type BodyMediaType = typeof BODY_MEDIA_TYPES[number];
export type PatchMediaType = typeof BUILTIN_PATCH_TYPES[number];

/**
 * The media type a create, update or delete body is decoded as (negotiation.NegotiateInputSerializer): none given
 * means the first (JSON); otherwise the header is parsed as Go's mime.ParseMediaType parses it (lower-cased, the
 * parameters checked and dropped) and must name one of BODY_MEDIA_TYPES exactly. Anything else is 415.
 */
export function bodyMediaType(header: string | undefined): BodyMediaType {
  if (!header) return BODY_MEDIA_TYPES[0];
  const parsed = parseMediaType(header);
  const found = BODY_MEDIA_TYPES.find((t) => t === parsed);
  if (!found) throw errors.unsupportedMediaType(BODY_MEDIA_TYPES);
  return found;
}

/**
 * The patch type of a PATCH (handlers/patch.go): the header up to its first `;`, compared as it is (no
 * lower-casing, no trimming, as the real server compares it), against the kind's list. Anything else is 415.
 */
export function patchMediaType(header: string | undefined, builtin: boolean): PatchMediaType {
  const accepted: readonly PatchMediaType[] = builtin ? BUILTIN_PATCH_TYPES : CUSTOM_RESOURCE_PATCH_TYPES;
  let type = header ?? '';
  const semicolon = type.indexOf(';');
  if (semicolon > 0) type = type.slice(0, semicolon);
  const found = accepted.find((t) => t === type);
  if (!found) throw errors.unsupportedMediaType(accepted);
  return found;
}

/** RFC 7230 token characters, the only ones Go's mime package takes in a type, a subtype or a parameter name. */
function isTokenChar(code: number): boolean {
  return code > 0x20 && code < 0x7f && !'()<>@,;:\\"/[]?='.includes(String.fromCharCode(code));
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r' || c === '\n';

/**
 * `type/subtype` lower-cased, or undefined where Go's mime.ParseMediaType fails (no type, no subtype, junk after
 * it, a parameter that is not `name=value`, a name given twice). A linear scan, no regular expression: the header
 * is the client's.
 */
export function parseMediaType(header: string): string | undefined {
  const semicolon = header.indexOf(';');
  const base = (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  const slash = base.indexOf('/');
  const type = slash < 0 ? base : base.slice(0, slash);
  const subtype = slash < 0 ? undefined : base.slice(slash + 1);
  if (!type || ![...type].every((c) => isTokenChar(c.charCodeAt(0)))) return undefined;
  if (subtype !== undefined && (!subtype || ![...subtype].every((c) => isTokenChar(c.charCodeAt(0))))) return undefined;
  return semicolon < 0 || parametersValid(header.slice(semicolon)) ? base : undefined;
}

/** Whether `; name=value` parameters parse (values a token or a quoted string); one trailing `;` is allowed. */
function parametersValid(rest: string): boolean {
  const names = new Set<string>();
  let i = 0;
  const skipSpace = () => { while (isSpace(rest[i])) i++; };
  for (;;) {
    skipSpace();
    if (i >= rest.length) return true;
    if (rest[i] !== ';') return false;
    i++;
    skipSpace();
    if (i >= rest.length) return true; // a trailing semicolon is ignored
    const nameStart = i;
    while (i < rest.length && isTokenChar(rest.charCodeAt(i))) i++;
    const name = rest.slice(nameStart, i).toLowerCase();
    if (!name || names.has(name)) return false;
    names.add(name);
    skipSpace();
    if (rest[i] !== '=') return false;
    i++;
    skipSpace();
    if (rest[i] === '"') {
      for (i++; i < rest.length && rest[i] !== '"'; i++) if (rest[i] === '\\') i++;
      if (i >= rest.length) return false;
      i++;
    } else {
      const valueStart = i;
      while (i < rest.length && isTokenChar(rest.charCodeAt(i))) i++;
      if (i === valueStart) return false;
    }
  }
}
