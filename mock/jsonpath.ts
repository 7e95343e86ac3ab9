/**
 * Kubernetes JSONPath (as written in additionalPrinterColumns and `kubectl -o jsonpath`) evaluated with
 * jsonpath-plus. Kubernetes paths start with a dot and escape dots inside keys (`.metadata.annotations.a\.b/c`);
 * jsonpath-plus wants `$` and bracketed names, so paths are translated once and cached.
 */
import { JSONPath } from 'jsonpath-plus';

const cache = new Map<string, string>();

/** `.status.conditions[?(@.type=="Ready")].status` -> `$['status']['conditions'][?(@.type=="Ready")]['status']` */
export function toJsonPathPlus(k8sPath: string): string {
  const cached = cache.get(k8sPath);
  if (cached) return cached;
  let path = k8sPath.trim();
  if (path.startsWith('{') && path.endsWith('}')) path = path.slice(1, -1);
  if (path.startsWith('$')) path = path.slice(1);
  let out = '$';
  let i = 0;
  while (i < path.length) {
    const ch = path[i];
    if (ch === '.') {
      let name = '';
      i++;
      while (i < path.length && path[i] !== '.' && path[i] !== '[') {
        if (path[i] === '\\' && i + 1 < path.length) { name += path[i + 1]; i += 2; continue; }
        name += path[i++];
      }
      if (name === '*') out += '[*]';
      else if (name) out += `[${JSON.stringify(name).replace(/^"|"$/g, "'")}]`;
    } else if (ch === '[') {
      // Copy the bracket expression as is (filters, indexes, wildcards), minding nested brackets and quotes.
      let depth = 0, j = i, quote = '';
      for (; j < path.length; j++) {
        const c = path[j];
        if (quote) { if (c === quote) quote = ''; continue; }
        if (c === '"' || c === "'") quote = c;
        else if (c === '[') depth++;
        else if (c === ']' && --depth === 0) break;
      }
      out += path.slice(i, j + 1);
      i = j + 1;
    } else {
      i++;
    }
  }
  cache.set(k8sPath, out);
  return out;
}

/** All values a path selects (an empty array when none). */
export function evaluate(k8sPath: string, obj: unknown): unknown[] {
  try {
    return JSONPath({ path: toJsonPathPlus(k8sPath), json: obj as object, wrap: true, eval: 'safe' }) as unknown[];
  } catch {
    return [];
  }
}
