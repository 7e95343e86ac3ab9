/**
 * How much of a request body the server decodes, and the check of JSON nesting made before JSON.parse. Each bound is
 * kube-apiserver's where the mock can afford it, and tighter, with the reason, where a recursive walk of the mock's
 * (or of the `yaml` package) would overflow the stack first: an overflow deep in a recursion is a 500 at best, and at
 * worst (V8 compiling a regular expression with the stack nearly spent) `FATAL ERROR: RegExpCompiler Allocation
 * failed`, the end of the process. mock/README.md, "Decoding limits", cites the upstream sources.
 */
import { ApiError } from './errors.js';

/** Bytes of one request body: kube-apiserver's MaxRequestBodyBytes default (k8s.io/apiserver pkg/server/config.go). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/**
 * Nesting of objects and arrays in a JSON body. kube-apiserver's decoder (sigs.k8s.io/json, Go's encoding/json
 * scanner) stops at 10000 (`exceeded max depth`); the mock's own walks of an object (cloning, schema checks, merge
 * patches, managedFields) recurse, and 1000 levels is where they still have room to spare. Real objects nest far
 * less: the deepest CRD of openshift 4.12-4.22 (a schema, itself deep) nests 25 levels.
 */
export const MAX_JSON_DEPTH = 1000;

/**
 * Nesting of collections in a YAML body. go-yaml v2, kube-apiserver's YAML reader, stops at 10000 flow levels and
 * 10000 indents (scannerc.go, max_flow_level and max_indents); the `yaml` package composes documents recursively and
 * overflows a cold Node 20 stack at 700-800 levels of flow collections, so the mock stops at a third of that.
 */
export const MAX_YAML_DEPTH = 256;

/** Operations of one JSON patch: kube-apiserver's maxJSONPatchOperations (k8s.io/apiserver handlers/patch.go). */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

/** 400 for a body that nests too deep, with the words of the Go decoders (`exceeded max depth`). */
export function tooDeep(format: 'JSON' | 'YAML', limit: number): ApiError {
  return new ApiError(400, 'BadRequest', `the request body is not valid ${format}: exceeded max depth of ${limit}`);
}

/** 413 for a JSON patch of too many operations, as handlers/patch.go words it. */
export function tooManyPatchOperations(count: number): ApiError {
  return new ApiError(413, 'RequestEntityTooLarge',
    `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${count}`);
}

/**
 * Whether JSON text nests objects and arrays deeper than `limit`: one pass over the characters, brackets inside
 * strings skipped, stopping at the first level too deep. Exact for valid JSON; for text that is not JSON it only
 * has to be cheap and finish, since JSON.parse refuses that anyway.
 */
export function jsonNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character, a quote included
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) { if (++depth > limit) return true; }
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
