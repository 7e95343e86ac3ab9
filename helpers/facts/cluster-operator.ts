/** ClusterOperators: their conditions and the version they report, read as the CVO reads them. */
import { findCondition, type ClusterOperator, type Condition } from '../types.js';
import { fails, holds, quote, type Fact } from './fact.js';

export interface OperatorView {
  name: string;
  /** versions[name=operator]: the release the operator says it has reached. */
  version?: string;
  available?: Condition;
  progressing?: Condition;
  degraded?: Condition;
}

export function viewOperator(co: ClusterOperator): OperatorView {
  const c = co.status?.conditions;
  return {
    name: co.metadata.name ?? '?',
    version: co.status?.versions?.find((v) => v.name === 'operator')?.version,
    available: findCondition(c, 'Available'),
    progressing: findCondition(c, 'Progressing'),
    degraded: findCondition(c, 'Degraded'),
  };
}

/**
 * origin's "operator settled", at a version: Available=True, Degraded=False, Progressing=False, and versions[operator]
 * is the version. Unset conditions do not count as healthy: an operator that says nothing has not settled.
 */
export function operatorSettledAt(co: ClusterOperator, version: string): Fact {
  const v = viewOperator(co);
  const name = `clusteroperator/${v.name}`;
  if (v.degraded?.status !== 'False') {
    return fails(`${name} is Degraded=${v.degraded?.status ?? 'unset'} (reason ${v.degraded?.reason || 'none'}): ${quote(v.degraded?.message)}`);
  }
  if (v.available?.status !== 'True') return fails(`${name} is Available=${v.available?.status ?? 'unset'}: ${quote(v.available?.message)}`);
  if (v.version !== version) {
    return fails(`${name} reports version ${v.version ?? 'none'}, expected ${version}; Progressing=${v.progressing?.status ?? 'unset'}: ${quote(v.progressing?.message)}`);
  }
  if (v.progressing?.status !== 'False') return fails(`${name} is still Progressing=${v.progressing?.status ?? 'unset'}: ${quote(v.progressing?.message)}`);
  return holds(`${name} is Available, not Degraded, not Progressing, at ${version}`);
}

/** The operator is Degraded, with its reason and message (undefined when it is not). */
export function operatorDegradation(co: ClusterOperator | undefined): Condition | undefined {
  const d = co ? viewOperator(co).degraded : undefined;
  return d?.status === 'True' ? d : undefined;
}

/** One line for timelines and wait messages. */
export function operatorLine(co: ClusterOperator): string {
  const v = viewOperator(co);
  const degraded = v.degraded?.status === 'True' ? `: ${v.degraded.message ?? ''}` : '';
  return `version=${v.version ?? '-'} Available=${v.available?.status ?? '-'} Progressing=${v.progressing?.status ?? '-'} Degraded=${v.degraded?.status ?? '-'}${degraded}`;
}
