/**
 * `x-kubernetes-validations` rules through @bufbuild/cel: each rule is parsed and planned once per schema node (so
 * once per CRD version), on the first object that reaches it, never at start-up. A rule that calls a function this
 * mock does not provide is not run: it is an explicit gap, reported once on stderr and failing closed (the write is
 * refused, naming the functions), so it never passes silently. The supported functions are listed in mock/README.md.
 */
import { celEnv, isCelError, parse, plan, type CelEnv, type CelResult } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { CACHED_RE2, KUBERNETES_FUNCS } from './library.js';
import { none, OPTIONAL_FUNCS, rewriteOptionalSelects, rewriteOptionalSyntax, some } from './optional.js';

type Schema = Record<string, any>;

export interface Rule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export type RuleOutcome = { pass: true } | { pass: false; message: string } | { error: string };

export interface CompiledRule {
  rule: Rule;
  /** Transition rule: only run on update when an old value correlates (or always, with optionalOldSelf). */
  usesOldSelf: boolean;
  /** Functions the rule calls that this mock does not provide; the rule is then refused, not run. */
  unsupported: string[];
  evaluate(self: unknown, schema: Schema, oldSelf: { present: boolean; value?: unknown }): RuleOutcome;
}

let env: CelEnv | undefined;
function celEnvironment(): CelEnv {
  env ??= celEnv({ funcs: [...strings, ...KUBERNETES_FUNCS, ...OPTIONAL_FUNCS], re2: CACHED_RE2 });
  return env;
}

/** Calls the planner treats itself rather than through the function registry. */
const PLANNER_CALLS = new Set(['_&&_', '_||_', '_?_:_', '_[_]', '_[?_]', '_?._', '@not_strictly_false', '__not_strictly_false__']);

type Program = (ctx: Record<string, unknown>) => CelResult;

/**
 * The functions an expression calls; `ns.f()` on an identifier that is no variable (`format.dns1123Label()`,
 * `math.greatest()`) is the namespaced function `ns.f`.
 */
function callNames(expr: any, out: Set<string>, variables = new Set(['self', 'oldSelf'])): void {
  if (!expr || typeof expr !== 'object') return;
  const k = expr.exprKind;
  if (k?.case === 'comprehensionExpr') variables = new Set([...variables, k.value.iterVar, k.value.iterVar2, k.value.accuVar].filter(Boolean));
  if (k?.case === 'callExpr') {
    const target = k.value.target;
    const ident: string | undefined = target?.exprKind?.case === 'identExpr' ? target.exprKind.value.name : undefined;
    const qualified = ident && !variables.has(ident) ? `${ident}.${k.value.function}` : undefined;
    out.add(qualified && (celEnvironment().funcs.find(qualified) || !celEnvironment().funcs.find(k.value.function)) ? qualified : k.value.function);
  }
  for (const v of Object.values(k?.value ?? {})) {
    if (Array.isArray(v)) v.forEach((x) => callNames(x, out, variables));
    else if (v && typeof v === 'object') callNames(v, out, variables);
  }
}

function identNames(expr: any, out: Set<string>): void {
  if (!expr || typeof expr !== 'object') return;
  if (expr.exprKind?.case === 'identExpr') out.add(expr.exprKind.value.name);
  for (const v of Object.values(expr.exprKind?.value ?? {})) {
    if (Array.isArray(v)) v.forEach((x) => identNames(x, out));
    else if (v && typeof v === 'object') identNames(v, out);
  }
}

/** Parses and plans one expression; returns the program, the functions it lacks and whether it reads oldSelf. */
function compileExpression(source: string, optionalOldSelf: boolean): { program?: Program; unsupported: string[]; usesOldSelf: boolean; error?: string } {
  let parsed;
  try { parsed = parse(rewriteOptionalSyntax(source)); } catch (e) { return { unsupported: [], usesOldSelf: false, error: `compilation failed: ${(e as Error).message}` }; }
  const maxId = { id: 1_000_000n };
  rewriteOptionalSelects(parsed.expr as any, new Set(optionalOldSelf ? ['oldSelf'] : []), maxId);
  const calls = new Set<string>();
  callNames(parsed.expr, calls);
  const unsupported = [...calls].filter((c) => !PLANNER_CALLS.has(c) && !celEnvironment().funcs.find(c)).sort();
  const idents = new Set<string>();
  identNames(parsed.expr, idents);
  const usesOldSelf = idents.has('oldSelf');
  if (unsupported.length) return { unsupported, usesOldSelf };
  return { program: plan(celEnvironment(), parsed) as unknown as Program, unsupported, usesOldSelf };
}

/**
 * A JSON value as CEL sees it under its schema: integers are ints (bigint), `type: number` values doubles, and a
 * string of `format: byte` the bytes its base64 spells (so `string(self)` is the decoded text), as k8s.io/apiserver's
 * pkg/cel/common (valuesunstructured.go, UnstructuredToVal) converts them.
 */
export function toCel(v: unknown, s: Schema | undefined): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' && s?.type === 'string' && s.format === 'byte') return new Uint8Array(Buffer.from(v, 'base64'));
  if (typeof v === 'number') {
    if (s?.type === 'number') return v;
    return Number.isInteger(v) ? BigInt(v) : v;
  }
  if (Array.isArray(v)) return v.map((x) => toCel(x, s?.items));
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    const extra = s?.additionalProperties && typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = toCel(x, s?.properties?.[k] ?? extra);
    return out;
  }
  return v;
}

/** The text of an evaluation error as cel-go words it. */
function errorText(e: Error): string {
  const m = e.message;
  const key = m.match(/^field not found: (.*)$/) ?? m.match(/^no such key: (.*)$/);
  return key ? `no such key: ${key[1]}` : m;
}

function compileRule(rule: Rule): CompiledRule {
  const optionalOldSelf = rule.optionalOldSelf === true;
  const main = compileExpression(rule.rule, optionalOldSelf);
  const message = rule.messageExpression ? compileExpression(rule.messageExpression, optionalOldSelf) : undefined;
  const unsupported = [...new Set([...main.unsupported, ...(message?.unsupported ?? [])])];
  const fallback = rule.message?.trim() || `failed rule: ${rule.rule.trim()}`;
  return {
    rule,
    usesOldSelf: main.usesOldSelf || Boolean(message?.usesOldSelf),
    unsupported,
    evaluate(self, schema, oldSelf) {
      if (main.error) return { error: main.error };
      const ctx: Record<string, unknown> = { self: toCel(self, schema) };
      if (optionalOldSelf) ctx.oldSelf = oldSelf.present ? some(toCel(oldSelf.value, schema)) : none();
      else if (oldSelf.present) ctx.oldSelf = toCel(oldSelf.value, schema);
      let result: CelResult;
      try { result = main.program!(ctx); } catch (e) { result = e as never; }
      if (isCelError(result) || result instanceof Error) return { error: errorText(result as Error) };
      if (result === true) return { pass: true };
      if (result !== false) return { error: `rule did not evaluate to a bool but to ${typeof result}` };
      if (message?.program) {
        let text: unknown;
        try { text = message.program(ctx); } catch { text = undefined; }
        // As upstream: a messageExpression that fails, is not a string, is blank or spans lines falls back to message.
        if (typeof text === 'string' && text.trim() !== '' && !text.includes('\n') && text.length <= 5000) return { pass: false, message: text };
      }
      return { pass: false, message: fallback };
    },
  };
}

const compiled = new WeakMap<object, CompiledRule[]>();
const reported = new Set<string>();

/** The rules of one schema node, compiled on first use and kept with the node (so once per CRD version). */
export function rulesOf(schema: Schema): CompiledRule[] {
  const rules: Rule[] | undefined = schema['x-kubernetes-validations'];
  if (!Array.isArray(rules) || rules.length === 0) return [];
  let out = compiled.get(rules);
  if (!out) {
    out = rules.filter((r) => typeof r?.rule === 'string').map(compileRule);
    for (const r of out) {
      if (r.unsupported.length && !reported.has(r.rule.rule)) {
        reported.add(r.rule.rule);
        process.stderr.write(`mock API server: CEL rule refused (unsupported functions ${r.unsupported.join(', ')}): ${r.rule.rule}\n`);
      }
    }
    compiled.set(rules, out);
  }
  return out;
}
