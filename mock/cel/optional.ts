/**
 * CEL optional values (`x.?field`, `optional.of/none/ofNonZeroValue`, `hasValue()`, `value()`, `orValue()`) and the
 * `optionalOldSelf` binding, which @bufbuild/cel's parser and evaluator do not have. An optional is carried as a CEL
 * map with a marker key; field selection on an optional is rewritten, in the parsed expression, to a call of
 * `@optSelect`, which yields an optional again (none when the field is absent), as optional chaining does upstream.
 */
import { celFunc, celMethod, CelScalar, isCelList, isCelMap, type CelFunc, type CelValue } from '@bufbuild/cel';

const MARK = '\u0000optional';
const VALUE = '\u0000value';

export type Optional = ReadonlyMap<string, unknown>;
export const none = (): Optional => new Map([[MARK, false]]);
export const some = (v: unknown): Optional => new Map<string, unknown>([[MARK, true], [VALUE, v]]);
export function isOptional(v: unknown): v is Optional {
  return (v instanceof Map || isCelMap(v)) && (v as ReadonlyMap<unknown, unknown>).has(MARK);
}
const present = (o: Optional) => o.get(MARK) === true;

/** The text a rule may write `x.?f` in; the parser knows no `.?`, so it becomes a field with this prefix first. */
export const OPT_FIELD_PREFIX = '__opt__';

/** Rewrites `.?name` outside string literals to `.__opt__name`, which the parser accepts. */
export function rewriteOptionalSyntax(source: string): string {
  let out = '';
  let quote: string | undefined;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (quote) {
      out += c;
      if (c === '\\') { out += source[++i] ?? ''; continue; }
      if (source.startsWith(quote, i)) { out += source.slice(i + 1, i + quote.length); i += quote.length - 1; quote = undefined; }
      continue;
    }
    if (c === '"' || c === "'") { quote = source.startsWith(c.repeat(3), i) ? c.repeat(3) : c; out += quote; i += quote.length - 1; continue; }
    if (c === '.' && source[i + 1] === '?' && /[A-Za-z_]/.test(source[i + 2] ?? '')) { out += `.${OPT_FIELD_PREFIX}`; i += 1; continue; }
    out += c;
  }
  return out;
}

type Expr = { id: bigint; exprKind: { case: string | undefined; value?: any } };

function strConst(id: bigint, s: string): Expr {
  return { $typeName: 'cel.expr.Expr', id, exprKind: { case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'stringValue', value: s } } } } as unknown as Expr;
}

/**
 * Walks a parsed expression: `x.__opt__f` and any selection on an optional-valued operand (the result of one, or
 * `oldSelf` when the rule sets optionalOldSelf) become `@optSelect(x, "f")`. Returns whether anything changed.
 */
export function rewriteOptionalSelects(expr: Expr, optionalIdents: Set<string>, nextId: { id: bigint }): boolean {
  let changed = false;
  const yieldsOptional = (e: Expr): boolean => {
    const k = e.exprKind;
    if (k.case === 'identExpr') return optionalIdents.has(k.value.name);
    if (k.case === 'callExpr') {
      if (k.value.function === '@optSelect') return true;
      const target = k.value.target as Expr | undefined;
      return ['of', 'none', 'ofNonZeroValue'].includes(k.value.function) && target?.exprKind.case === 'identExpr' && target.exprKind.value.name === 'optional';
    }
    return false;
  };
  const visit = (e: Expr | undefined): void => {
    if (!e || typeof e !== 'object' || !e.exprKind) return;
    const k = e.exprKind;
    switch (k.case) {
      case 'selectExpr': {
        visit(k.value.operand);
        const field: string = k.value.field;
        const optional = field.startsWith(OPT_FIELD_PREFIX);
        if ((optional || yieldsOptional(k.value.operand)) && !k.value.testOnly) {
          const name = optional ? field.slice(OPT_FIELD_PREFIX.length) : field;
          e.exprKind = { case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', function: '@optSelect', args: [k.value.operand, strConst(nextId.id++, name)] } };
          changed = true;
        }
        return;
      }
      case 'callExpr': visit(k.value.target); for (const a of k.value.args) visit(a); return;
      case 'listExpr': for (const a of k.value.elements) visit(a); return;
      case 'structExpr': for (const entry of k.value.entries) { visit(entry.keyKind?.value); visit(entry.value); } return;
      case 'comprehensionExpr':
        for (const key of ['iterRange', 'accuInit', 'loopCondition', 'loopStep', 'result']) visit(k.value[key]);
        return;
      default: return;
    }
  };
  visit(expr);
  return changed;
}

function selectField(v: unknown, field: string): Optional {
  if (isCelMap(v) || v instanceof Map) {
    const m = v as ReadonlyMap<unknown, unknown>;
    return m.has(field) ? some(m.get(field)) : none();
  }
  if (v !== null && typeof v === 'object' && !isCelList(v) && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    return Object.prototype.hasOwnProperty.call(o, field) ? some(o[field]) : none();
  }
  return none();
}

function isZero(v: unknown): boolean {
  if (v === null || v === false || v === '' || v === 0 || v === 0n) return true;
  if (isCelList(v)) return v.size === 0;
  if (isCelMap(v)) return v.size === 0;
  return false;
}

const DYN = CelScalar.DYN;
const fail = (message: string): never => { throw new Error(message); };

export const OPTIONAL_FUNCS: CelFunc[] = [
  celFunc('@optSelect', [DYN, CelScalar.STRING], DYN, (target: CelValue, field: string) => {
    if (isOptional(target)) return (present(target) ? selectField(target.get(VALUE), field) : none()) as never;
    return selectField(target, field) as never;
  }),
  celFunc('optional.none', [], DYN, () => none() as never),
  celFunc('optional.of', [DYN], DYN, (v: CelValue) => some(v) as never),
  celFunc('optional.ofNonZeroValue', [DYN], DYN, (v: CelValue) => (isZero(v) ? none() : some(v)) as never),
  celMethod('hasValue', DYN, [], CelScalar.BOOL, function (this: CelValue) {
    return isOptional(this) ? present(this) : fail(`no such overload: ${typeof this}.hasValue()`);
  }),
  celMethod('value', DYN, [], DYN, function (this: CelValue) {
    if (!isOptional(this)) return fail('no such overload: value()');
    return (present(this) ? this.get(VALUE) : fail('optional.none() dereference')) as never;
  }),
  celMethod('orValue', DYN, [DYN], DYN, function (this: CelValue, other: CelValue) {
    if (!isOptional(this)) return fail('no such overload: orValue()');
    return (present(this) ? this.get(VALUE) : other) as never;
  }),
];
