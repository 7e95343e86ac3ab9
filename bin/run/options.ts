/** The options of `ocp-e2e run`: their definitions on the command line and the checks made before any cluster time. */
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { loadPullSecret } from '../../helpers/secrets.js';
import { collect, positiveNumber } from '../args.js';
import { UsageError } from './usage-error.js';

export interface RunOptions {
  target: 'reference' | 'cluster';
  profile?: string;
  fault?: string[];
  grep?: string;
  toImage?: string;
  imageRepo?: string;
  pullSecret?: string;
  kubeconfig?: string;
  allowDisruptive?: boolean;
  keepOnFailure?: boolean;
  timeFactor?: number;
  /** Where allure-results, junit and artifacts go (default `reports`). */
  reportsDir?: string;
  /** Spec files to consider (default: every specs/*.spec.ts). */
  specs?: string[];
}

export function defineRunOptions(command: Command): Command {
  return command
    .addOption(new Option('--target <target>', 'where to run').choices(['reference', 'cluster']).default('reference'))
    .option('--profile <profile>', 'reference only: 4.12-ga (fixed code) or 4.12-nightly-2022-09-08 (the report\'s buggy code)')
    .option('--fault <name...>', 'reference only: break behaviours on purpose (names as in specs/README.md; repeatable)', collect)
    .option('--grep <regexp>', 'run only the specs whose title matches, e.g. 54183')
    .option('--to-image <pullspec>', 'release image to upgrade to (default: the cluster\'s first available update)')
    .option('--image-repo <repository>', 'where layered OS images are pushed (required on real clusters)')
    .option('--pull-secret <file>', 'registry credentials for pulling base images and pushing layered images')
    .option('--kubeconfig <file>', 'cluster only: kubeconfig of the cluster (default $KUBECONFIG, then ~/.kube/config)')
    .option('--allow-disruptive', 'run specs that upgrade the cluster or change its pools (real clusters; implied on the reference)')
    .option('--keep-on-failure', 'leave what a failed spec created in place for inspection')
    .option('--time-factor <n>', 'reference only: cluster seconds per wall second (default: the reference\'s)', positiveNumber)
    .option('--reports-dir <dir>', 'where Allure results, JUnit XML and failure artefacts go (emptied first)', 'reports');
}

/** Refuses combinations that make no sense and values that cannot work, before anything starts. */
export function validateOptions(options: RunOptions): void {
  if (options.target === 'cluster') {
    for (const [flag, value] of [['--profile', options.profile], ['--fault', options.fault], ['--time-factor', options.timeFactor]] as const) {
      if (value !== undefined) throw new UsageError(`${flag} applies to --target reference only`);
    }
  } else if (options.kubeconfig) {
    throw new UsageError('--kubeconfig applies to --target cluster only (the reference cluster makes its own)');
  }
  if (options.grep !== undefined) {
    try {
      new RegExp(options.grep);
    } catch (error) {
      throw new UsageError(`--grep is not a regular expression: ${(error as Error).message}`);
    }
  }
  if (options.pullSecret) {
    try {
      loadPullSecret(resolve(options.pullSecret)); // registers its credentials for masking our own output too
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
}
