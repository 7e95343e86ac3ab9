/**
 * How a built-in kind is described to the server (its ResourceType with the defaults every built-in shares) and the
 * column helpers several built-in kinds print with.
 */
import { ALL_VERBS, type PrinterColumn, type ResourceType } from './resources.js';

export const age: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time since creation' };

export function builtin(p: Partial<ResourceType> & Pick<ResourceType, 'group' | 'version' | 'kind' | 'plural' | 'namespaced'>): ResourceType {
  return {
    listKind: `${p.kind}List`,
    singular: p.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    statusSubresource: false,
    builtin: true,
    tracksGeneration: false,
    columns: [age],
    storageKey: `${p.group}/${p.plural}`,
    storageVersion: p.version,
    verbs: ALL_VERBS,
    ...p,
  };
}

/** metav1.FormatLabelSelector: `k=v,k2 in (a,b)`, `<none>` when empty. */
export function formatSelector(selector: { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> } | undefined): string {
  const parts = Object.entries(selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of selector?.matchExpressions ?? []) {
    const op = e.operator.toLowerCase();
    if (op === 'exists') parts.push(e.key);
    else if (op === 'doesnotexist') parts.push(`!${e.key}`);
    else parts.push(`${e.key} ${op === 'notin' ? 'notin' : 'in'} (${(e.values ?? []).join(',')})`);
  }
  return parts.length ? parts.join(',') : '<none>';
}

