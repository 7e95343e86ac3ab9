/**
 * `--phase pre|upgrade|post`, before any spec starts: every selected upgrade spec's checkpoint must be where the phase
 * needs it (none before pre; one from this suite and this cluster before upgrade and post; an upgrade between pre and
 * post). All problems are said at once, exit 2: a pipeline step that cannot go on should not spend cluster time. One
 * exception: where pre prepared some specs and failed others (the report's nightly cannot prepare 09 and 10), upgrade
 * and post go on with the prepared ones, and the others fail there as not prepared: the pipeline still judges what it can.
 */
import { basename } from 'node:path';
import type { Cluster } from '../../../helpers/cluster.js';
import { listCheckpoints } from '../../../helpers/checkpoint/store.js';
import { phaseStartProblem } from '../../../helpers/checkpoint/validate.js';
import { currentVersion } from '../../../helpers/facts/cluster-version.js';
import { releaseNameOf } from '../../../helpers/releases/select.js';
import { phaseTag } from '../../../helpers/split-phases.js';
import { suiteVersion } from '../../../helpers/suite-version.js';
import type { RunPhase } from '../../../helpers/target.js';
import { listTests } from '../spec-listing.js';
import { UsageError } from '../usage-error.js';
import { EXIT } from './exit-codes.js';

export async function preflightPhase(cluster: Cluster, phase: Exclude<RunPhase, 'all'>, files: string[]): Promise<void> {
  // The upgrade specs are the ones whose titles carry the phase's marker; the others are skipped in a split run.
  const marker = phaseTag(phase)!;
  const listed = await listTests(files, phase);
  const upgradeFiles = [...new Set(listed.filter((t) => t.fullTitle.includes(`-${marker}-`)).map((t) => t.file))];
  let checkpoints;
  try {
    checkpoints = await listCheckpoints(cluster);
  } catch (error) {
    throw new UsageError(`cannot read the checkpoints of --phase ${phase}: ${(error as Error).message}`, EXIT.usage);
  }
  const [version, cv] = await Promise.all([suiteVersion(), cluster.getClusterVersion()]);
  const problems = upgradeFiles
    .map((file) => ({ file, problem: phaseStartProblem({ phase, specFile: basename(file), checkpoint: checkpoints.get(basename(file)), suiteVersion: version, clusterVersion: cv }) }))
    .filter((p): p is { file: string; problem: string } => p.problem !== undefined);
  // a spec the cluster's release rules out has no checkpoint by design: it skips in every phase, saying why
  const release = releaseNameOf(currentVersion(cv));
  const ruledOut = new Set(listed.filter((t) => release && t.declared?.notOnReleases?.[release]).map((t) => t.file));
  const unprepared = phase === 'pre' ? [] : problems.filter((p) => !checkpoints.has(basename(p.file)) && !ruledOut.has(p.file));
  const prepared = upgradeFiles.length - unprepared.length - ruledOut.size;
  const blocking = problems.filter((p) => !ruledOut.has(p.file) || checkpoints.has(basename(p.file)));
  if (blocking.length > unprepared.length || (unprepared.length > 0 && prepared === 0)) {
    throw new UsageError(`--phase ${phase} cannot start:\n${blocking.map((p) => `  - ${p.problem}`).join('\n')}`, EXIT.usage);
  }
  if (unprepared.length) {
    // a spec may also have skipped itself in pre for a reason of the upgrade's target (spec 19 applies to an upgrade to
    // 4.22 only): it says so again here and skips; the others fail as not prepared
    console.log(`phase ${phase}: ${unprepared.length} spec file(s) have no checkpoint (their --phase pre failed, did not run, or skipped them): each skips here with its reason where it does not apply to this cluster, else fails as not prepared: ${unprepared.map((p) => basename(p.file)).join(', ')}`);
  }
  console.log(`phase: ${phase} (${upgradeFiles.length} upgrade spec file(s)${phase === 'pre' ? '' : `, checkpoints of run ${[...new Set(upgradeFiles.map((f) => checkpoints.get(basename(f))?.runId))].join(', ')}`})`);
}
