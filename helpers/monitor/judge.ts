/**
 * The invariants origin's upgrade monitor checks, judged over a recording (record.ts):
 *  - the machine-config ClusterOperator's Degraded periods: never about an osImageURL mismatch (the report's bug) and
 *    over by the end. A Degraded period while the master pool rolls is by design (MCO reports RequiredPools after 10
 *    minutes; a slow master rollout shows it for a while), so its length is reported, not judged;
 *  - the master pool has rolled out a config of the new release before ClusterVersion reports the upgrade completed.
 */
import type { DegradedPeriod, UpgradeRecording } from './record.js';

export interface InvariantResult {
  name: string;
  passed: boolean;
  detail: string;
}

function describe(p: DegradedPeriod): string {
  return `${p.clusterMinutes} cluster minutes from ${p.from}${p.to ? '' : ' (still Degraded)'}: ${p.reason ?? ''} ${p.message ?? ''}`.trim();
}

export function judgeUpgrade(recording: UpgradeRecording): InvariantResult[] {
  const periods = recording.degradedPeriods;
  const mismatch = periods.find((p) => /osImageURL mismatch/.test(p.message ?? ''));
  const open = periods.find((p) => p.to === undefined);
  const m = recording.masterAtCompletion;
  return [
    {
      name: 'machine-config ClusterOperator is never Degraded by an osImageURL mismatch',
      passed: !mismatch,
      detail: mismatch ? describe(mismatch) : `${periods.length} Degraded period(s), none about osImageURL`,
    },
    {
      name: 'machine-config ClusterOperator is not Degraded at the end of the upgrade',
      passed: !open,
      detail: open ? describe(open) : periods.length ? `recovered from: ${periods.map(describe).join('; ')}` : 'never Degraded',
    },
    {
      name: 'the master pool is updated before ClusterVersion reports the new version',
      passed: m !== undefined && m.rolledOut.ok && (m.renderedFor === undefined || m.renderedFor === m.version),
      detail: m ? `when ClusterVersion reported Completed, master was: ${m.line}` : 'ClusterVersion never reported the new version as Completed while monitored',
    },
  ];
}
