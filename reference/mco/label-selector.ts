/**
 * Kubernetes label selectors as the MCO's controllers use them (apimachinery's LabelSelectorAsSelector): matching, and
 * the errors an invalid selector gives. A missing selector matches nothing; an empty one matches everything.
 */
import type { LabelSelector } from './types.js';

/** Label selector matching (matchLabels and the four matchExpressions operators). An empty selector matches all. */
export function selectorMatches(selector: LabelSelector | undefined | null, labels: Record<string, string> = {}): boolean {
  if (!selector) return false;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const expr of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, expr.key);
    const value = labels[expr.key];
    switch (expr.operator) {
      case 'In':
        if (!has || !(expr.values ?? []).includes(value!)) return false;
        break;
      case 'NotIn':
        if (has && (expr.values ?? []).includes(value!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

export function isEmptySelector(selector: LabelSelector | undefined | null): boolean {
  return !selector || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0);
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const LABEL_VALUE_MESSAGE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/** Go's %#v of a []string, as field.Invalid prints it. */
function goStringSlice(values: readonly string[] | undefined): string {
  if (!values || values.length === 0) return '[]string(nil)';
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

function labelValueError(key: string, value: string, index: number): string | undefined {
  const problems: string[] = [];
  if (value.length > 63) problems.push('must be no more than 63 characters');
  if (!LABEL_VALUE.test(value)) problems.push(LABEL_VALUE_MESSAGE);
  if (problems.length === 0) return undefined;
  return `values[${index}][${key}]: Invalid value: ${JSON.stringify(value)}: ${problems.join('; ')}`;
}

const OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/**
 * Why LabelSelectorAsSelector refuses a selector (label keys are not checked here), or undefined. `apimachinery` is
 * the k8s.io/apimachinery release the MCO vendors: 0.26 (release-4.13) calls an unknown operator a "label selector
 * operator", 0.25 (4.12) a "pod selector operator".
 */
export function labelSelectorError(selector: LabelSelector | undefined | null, apimachinery: '0.25' | '0.26' = '0.25'): string | undefined {
  if (!selector) return undefined;
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    const problem = labelValueError(key, value, 0);
    if (problem) return problem;
  }
  for (const expr of selector.matchExpressions ?? []) {
    if (!OPERATORS.has(expr.operator)) return `${JSON.stringify(expr.operator)} is not a valid ${apimachinery === '0.26' ? 'label' : 'pod'} selector operator`;
    const values = expr.values ?? [];
    if ((expr.operator === 'In' || expr.operator === 'NotIn') && values.length === 0) {
      return `values: Invalid value: ${goStringSlice(values)}: for 'in', 'notin' operators, values set can't be empty`;
    }
    if ((expr.operator === 'Exists' || expr.operator === 'DoesNotExist') && values.length > 0) {
      return `values: Invalid value: ${goStringSlice(values)}: values set must be empty for exists and does not exist`;
    }
    for (const [i, value] of values.entries()) {
      const problem = labelValueError(expr.key, value, i);
      if (problem) return problem;
    }
  }
  return undefined;
}
