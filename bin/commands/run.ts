/** `ocp-e2e run`: the command's registration; the run itself lives in bin/run/. */
import type { Command } from 'commander';
import { defineRunOptions, type RunOptions } from '../run/options.js';
import { runSuite } from '../run/index.js';
import { addHelpExtras } from '../help.js';
import { REPORT_PROFILE } from '../../reference/profiles/index.js';

const CI_HELP = `
In CI:
  ocp-e2e run --target cluster --allow-disruptive --phase pre   PreChkUpgrade: prepare, leave a checkpoint (ConfigMap in ocp-e2e)
  oc adm upgrade --to-image $RELEASE --allow-explicit-upgrade --force      the pipeline's own upgrade step (or --phase upgrade)
  ocp-e2e run --target cluster --allow-disruptive --phase post  PstChkUpgrade: follow the upgrade, judge, clean up (new process)
  ocp-e2e run --jobs 2                                  spec files in parallel, each on its own reference cluster
  ocp-e2e run --shard 2/3 --reports-dir reports-2       one of 3 CI jobs; together they run every spec file once
  ocp-e2e merge-reports --out reports reports-1 reports-2 reports-3    one report of the shards
  ocp-e2e run --rerun-failed reports --reports-dir rerun               only the tests that failed in reports/
  ocp-e2e run --known-issues known-issues.yaml          matching failures reported as known issues with their bug

More in docs/ci.md, docs/upgrade-pipeline.md and specs/README.md.`;

export function register(program: Command): void {
  const run = defineRunOptions(
    program
      .command('run')
      .description('run the conformance suite against the embedded reference cluster (default) or a real cluster'),
  );
  addHelpExtras(run, {
    examples: [
      'ocp-e2e run                                              # all specs on the reference cluster, fixed 4.12 code',
      `ocp-e2e run --profile ${REPORT_PROFILE} --grep 54183  # the bug report reproduced: spec 1 fails (exit 1)`,
      'ocp-e2e run --grep E2E-004 --fault render-merge-unsorted     # one kill-matrix row: the spec must fail',
      'ocp-e2e run --target cluster --kubeconfig ~/.kube/config     # a real cluster: disruptive specs are skipped',
      'ocp-e2e run --target cluster --allow-disruptive --image-repo quay.io/me/layered --pull-secret ~/ps.json',
      'ocp-e2e report --reports-dir reports                          # then the HTML report of the run',
      'ocp-e2e run --list --target cluster --phase pre               # what a pre step would run and change, touching nothing',
      'ocp-e2e run --list --output json                              # the same for machines',
    ],
    environment: ['KUBECONFIG', 'DOCKER_HOST', 'XDG_RUNTIME_DIR', 'REGISTRY_AUTH_FILE', 'DOCKER_CONFIG', 'OCP_E2E_INTERRUPT_GRACE_SECONDS', 'OCP_E2E_NO_TIMESTAMPS'],
    profiles: true,
    faults: true,
  });
  run.addHelpText('after', CI_HELP);
  run.action(async (options: RunOptions) => {
    process.exit(await runSuite(options));
  });
}
