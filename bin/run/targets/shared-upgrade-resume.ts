/**
 * What an interrupted shared upgrade (one-upgrade.ts) tells the user: what it left on the cluster and the commands
 * that go on from there. After the prepares every upgrade spec's overrides and checkpoint stay with the plan's pools
 * (undoing them while the cluster upgrades would start a second roll-out in the middle of the upgrade's), so the
 * next step is a pipeline's: `--phase post` once the upgrade was requested, `--phase upgrade` and then `post` before.
 */
import type { Checkpoint } from '../../../helpers/checkpoint/format.js';
import { phaseCommand } from '../../../helpers/checkpoint/phase-command.js';
import type { Cluster } from '../../../helpers/cluster.js';
import { specKey } from '../../../helpers/plan/pool-plan.js';
import { requestedUpgrade } from '../../../helpers/upgrade.js';

export interface StoppedSharedUpgrade {
  kubeconfigPath: string;
  /** The run's own --grep: the later phases select the same specs. */
  grep?: string;
  /** Every upgrade spec's file, and those whose checkpoint is on the cluster (prepared and handed over). */
  upgradeFiles: string[];
  checkpoints: Checkpoint[];
  customPools: string[];
}

/** The lines to print (the run stamps them) about what stays and how to go on. */
export async function describeStop(cluster: Cluster, stopped: StoppedSharedUpgrade): Promise<string[]> {
  const specs = stopped.checkpoints.map((c) => specKey(c.specFile));
  const kept = `the overrides and checkpoints of ${specs.join(', ')} and the custom pools ${stopped.customPools.join(', ') || '(none)'} stay on the cluster, with the plan`;
  const from = stopped.checkpoints[0]?.from;
  const requested = from ? requestedUpgrade(await cluster.getClusterVersion(), from) : undefined;
  if (requested) {
    return [
      `interrupted: the upgrade to ${requested.image} is under way: ${kept} (undoing them now would start a second roll-out in the middle of the upgrade's)`,
      'to follow the upgrade to its end, judge it and clean up, run:',
      `    ${phaseCommand('post', stopped)}`,
    ];
  }
  const unprepared = stopped.upgradeFiles.map((f) => specKey(f)).filter((s) => !specs.includes(s));
  return [
    `interrupted before the upgrade was requested: ${kept}`,
    ...(unprepared.length ? [`${unprepared.join(', ')} did not finish --phase pre: the later phases go on only with the others (select them with --grep)`] : []),
    'to upgrade the cluster once, then judge the upgrade and clean up, run:',
    `    ${phaseCommand('upgrade', stopped)}`,
    `    ${phaseCommand('post', stopped)}`,
  ];
}
