/** Writing answers: JSON bodies, Status errors, warning headers, objects as seen through their served version. */
import type { ServerResponse } from 'node:http';
import type { ApiError } from '../errors.js';
import { apiVersionOf, type KubeObject, type ResourceType } from '../resources.js';
import type { StoredObject } from '../store.js';

export const JSON_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' };

export function send(res: ServerResponse, code: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) { res.end(); return; }
  res.writeHead(code, { ...JSON_HEADERS, ...headers, 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}

export function sendError(res: ServerResponse, err: ApiError): void {
  send(res, err.code, JSON.stringify(err.toStatus()), err.headers);
}

export function warningHeaders(warnings: string[]): Record<string, string> {
  if (!warnings.length) return {};
  // One header with comma-separated warn-values, as RFC 7234 allows.
  return { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(', ') };
}

/** JSON of a stored object as seen through one served version; cached when that is the storage version. */
export function objectJson(rt: ResourceType, stored: StoredObject): string {
  const apiVersion = apiVersionOf(rt);
  if (stored.obj.apiVersion === apiVersion) return (stored.json ??= JSON.stringify(stored.obj));
  return JSON.stringify({ ...stored.obj, apiVersion });
}

export function viewOf(rt: ResourceType, obj: KubeObject): KubeObject {
  const apiVersion = apiVersionOf(rt);
  return obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion };
}
