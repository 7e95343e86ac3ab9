/**
 * The CEL engine is loaded when a schema with `x-kubernetes-validations` is first stored, not at every start:
 * @bufbuild/cel, its extensions and RE2 cost a process ~25-75 ms of CPU to load, and the 4.12 and 4.13 CRDs carry
 * no rules, so a reference cluster of those releases never needs them. Loading is asynchronous (an ES module) while
 * validation is not: `makeSchemaCheck` starts the load as soon as it sees a rule, and the request pipeline (and the
 * server's start) wait for it before serving, so a rule is never met before its engine is there. Code that checks
 * objects outside the pipeline (unit tests of schemas) awaits `loadCel()` first.
 */
type CelModule = typeof import('./index.js');
export type { CompiledRule } from './index.js';

let engine: CelModule | undefined;
let loading: Promise<void> | undefined;

/** Loads the engine once; every call returns the same promise. */
export function loadCel(): Promise<void> {
  loading ??= import('./index.js').then((m) => void (engine = m));
  return loading;
}

/** Starts loading without waiting; a failure is reported to whoever waits (`celLoading`), not thrown here. */
export function startLoadingCel(): void {
  if (!engine) loadCel().catch(() => undefined);
}

/** The load in progress, when one is; undefined once loaded (or never asked for), so callers wait only when they must. */
export function celLoading(): Promise<void> | undefined {
  return engine ? undefined : loading;
}

/** Whether the engine is loaded (for the test that a cluster without rules never loads it). */
export function celLoaded(): boolean {
  return engine !== undefined;
}

/** A schema node's compiled rules (`cel/index.ts`); the engine must have been loaded. */
export function rulesOf(schema: Record<string, any>): ReturnType<CelModule['rulesOf']> {
  if (!engine) {
    throw new Error('a schema with x-kubernetes-validations was checked before the CEL engine was loaded: await loadCel() (mock/cel/loader.ts) first');
  }
  return engine.rulesOf(schema);
}
