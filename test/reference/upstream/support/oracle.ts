/**
 * The upstream MCO code as a test oracle: `mco-oracle-<commit>` (../shared/upstream/bin from the repository root, or
 * the directory in OCP_E2E_UPSTREAM_BIN), one process per batch of cases. A missing binary is an error that says where
 * the binary comes from; the differential tests fail on it rather than skip.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MCO_4_13, MCO_BUG_B, MCO_FIX } from '../../../../reference/profiles/mco-code.js';
import type { McoCode, ProfileName } from '../../../../reference/profiles/index.js';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export interface UpstreamCommit {
  /** The spec's label for the commit. */
  label: 'BUG-B' | 'FIX' | '4.13';
  /** The short commit in the binary's name. */
  short: string;
  commit: string;
  /** The reference's model of this code: what the differential compares the oracle with. */
  code: McoCode;
  /** A reference profile whose cluster runs this code (from its first release, or after the upgrade: `afterUpgrade`). */
  profile: ProfileName;
  afterUpgrade: boolean;
  /** Release versions of this code, for the ControllerConfigs of generated cases (the first is the profile's). */
  releases: readonly [string, string, string];
  /** ControllerConfig spec field names of the base OS images at this commit. */
  baseOSField: string;
  baseOSExtensionsField: string;
}

export const COMMITS: readonly UpstreamCommit[] = [
  {
    label: 'BUG-B',
    short: 'cad20f710',
    commit: 'cad20f7101719838aaa87c066430987303500fa6',
    code: MCO_BUG_B,
    profile: '4.12-nightly-2022-09-08',
    afterUpgrade: false,
    releases: ['4.12.0-0.nightly-2022-09-08-002336', '4.12.0-0.nightly-2022-09-12-152748', '4.12.0'],
    baseOSField: 'baseOperatingSystemContainer',
    baseOSExtensionsField: 'baseOperatingSystemExtensionsContainer',
  },
  {
    label: 'FIX',
    short: '3943ef1d0',
    commit: '3943ef1d03c1aaf3a02bfdf45d16902ff44449a3',
    code: MCO_FIX,
    profile: '4.12-ga',
    afterUpgrade: false,
    releases: ['4.12.0-0.nightly-2022-09-08-002336', '4.12.0-0.nightly-2022-09-12-152748', '4.12.0'],
    baseOSField: 'baseOSContainerImage',
    baseOSExtensionsField: 'baseOSExtensionsContainerImage',
  },
  {
    label: '4.13',
    short: 'a57ca2912',
    commit: 'a57ca291235422f8466ac53496e9d192eecfe1e4',
    code: MCO_4_13,
    profile: '4.12-to-4.13',
    afterUpgrade: true,
    releases: ['4.13.0', '4.13.0-0.nightly-2023-04-21-084440', '4.13.1'],
    baseOSField: 'baseOSContainerImage',
    baseOSExtensionsField: 'baseOSExtensionsContainerImage',
  },
];

export function upstreamBinDir(): string {
  return process.env.OCP_E2E_UPSTREAM_BIN ?? path.resolve(REPO_ROOT, '..', 'shared', 'upstream', 'bin');
}

/** The oracle binary of a commit; throws with where it comes from when it is not there. */
export function oraclePath(commit: UpstreamCommit): string {
  const file = path.join(upstreamBinDir(), `mco-oracle-${commit.short}`);
  try {
    accessSync(file, constants.X_OK);
  } catch {
    throw new Error(
      `the upstream oracle ${file} is missing or not executable. It is the machine-config-operator's own render and ` +
        `required-pool code (openshift/machine-config-operator at ${commit.commit}, ${commit.label}) behind a JSON front end, ` +
        `shipped in ../shared/upstream/bin next to the project (see ../shared/upstream/README.md; built by ` +
        `../shared/upstream/src/mco-oracle/build.sh). Point OCP_E2E_UPSTREAM_BIN at the directory that holds it.`,
    );
  }
  return file;
}

export type OracleCommand = 'render' | 'pool-valid';

/** Run one batch through the oracle: one process, the answers in the order of the cases. */
export function runOracle<T>(commit: UpstreamCommit, command: OracleCommand, cases: readonly unknown[]): Promise<T[]> {
  const binary = oraclePath(commit);
  return new Promise((resolve, reject) => {
    const child = execFile(binary, [command], { maxBuffer: 1024 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`${path.basename(binary)} ${command} failed (${error.message.split('\n')[0]}): ${stderr.trim().slice(0, 500)}`));
        return;
      }
      const answers = JSON.parse(stdout) as T[];
      if (!Array.isArray(answers) || answers.length !== cases.length) {
        reject(new Error(`${path.basename(binary)} ${command} answered ${Array.isArray(answers) ? answers.length : 'no array'} for ${cases.length} cases`));
        return;
      }
      resolve(answers);
    });
    child.stdin!.end(JSON.stringify(cases));
  });
}

/** JSON with object keys sorted at every level, so two values compare by content only. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}
