/**
 * Semantic equality for "does this object need writing?". A server may reorder keys, drop nulls or prune empty
 * fields; comparing raw JSON would make a controller rewrite the same object forever.
 */
export function normalize(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(normalize);
    return items.length === 0 ? undefined : items;
  }
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = normalize((value as Record<string, unknown>)[key]);
      if (v !== undefined && v !== null && v !== '' && v !== false) out[key] = v;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  if (value instanceof Date) return value.toISOString();
  return value;
}

export function semanticEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(normalize(a)) === JSON.stringify(normalize(b));
}
