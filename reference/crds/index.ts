/**
 * The OpenShift CRD manifests the reference serves, ready to pass as `crds` to startApiServer: one set per release.
 * The YAML files next to this module are the project's own 4.12 set (ClusterOperator, ClusterVersion, MachineConfig,
 * MachineConfigPool, ControllerConfig, KubeletConfig, ContainerRuntimeConfig, ImageContentSourcePolicy), which 4.12 and 4.13 clusters serve;
 * `4.18/` … `4.22/` hold those releases' CRDs exactly as openshift/api generates them (copied from the steering
 * repository's fixtures/openshift-4.<N>-crds, Default feature set, with MachineConfigNode from 4.19 and their CEL
 * rules). `crdSetOf(version)` picks a release's set, `openShiftCrds(version)` reads it.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const CRD_DIR = dirname(fileURLToPath(import.meta.url));

/** Every CustomResourceDefinition in the YAML files of a directory (all documents of every file), sorted by file. */
export function loadCrdsFrom(dir: string): object[] {
  const out: object[] = [];
  for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      if (doc.errors.length) throw new Error(`${join(dir, file)}: ${doc.errors[0]!.message}`);
      const value = doc.toJS() as { kind?: string } | null;
      if (value?.kind === 'CustomResourceDefinition') out.push(value);
    }
  }
  return out;
}

/**
 * The JSON of loadCrdsFrom(dir) that scripts/build.sh writes into each set's folder of the compiled tree
 * (writeParsedCrdSets): parsing the YAML costs every reference cluster's start about 150 ms of CPU for 4.12's set and
 * more for the larger upstream ones, the JSON a few. The sources (tsx) have no copy and parse the YAML.
 */
export const PARSED_CRDS_FILE = 'crds.parsed.json';

/** The CRD sets there are, oldest first: `4.12` (the project's own, in CRD_DIR itself) and one folder per newer release. */
export const CRD_SETS = ['4.12', '4.18', '4.19', '4.20', '4.21', '4.22'] as const;
export type CrdSet = (typeof CRD_SETS)[number];

/** Where a set's YAML files are. */
export function crdSetDir(set: CrdSet): string {
  return set === '4.12' ? CRD_DIR : join(CRD_DIR, set);
}

/**
 * The set a release serves, from its version: its own minor's when there is one, else the newest older set (4.13
 * serves 4.12's, a release past 4.22 4.22's); a version that cannot be read, 4.12's.
 */
export function crdSetOf(version: string | undefined): CrdSet {
  const minor = /^4\.(\d+)(?:\.|$)/.exec(version ?? '')?.[1];
  if (minor === undefined) return '4.12';
  let chosen: CrdSet = '4.12';
  for (const set of CRD_SETS) if (Number(set.slice(2)) <= Number(minor)) chosen = set;
  return chosen;
}

const parsedSets = new Map<CrdSet, string>();

/**
 * The OpenShift CRDs of the release `version` (the project's own 4.12 set without one), fresh objects on every call.
 * The file's text is kept once read: a process that starts many clusters reads each set once.
 */
export function openShiftCrds(version?: string): object[] {
  const set = crdSetOf(version);
  let text = parsedSets.get(set);
  if (text === undefined) {
    const parsed = join(crdSetDir(set), PARSED_CRDS_FILE);
    text = existsSync(parsed) ? readFileSync(parsed, 'utf8') : JSON.stringify(loadCrdsFrom(crdSetDir(set)));
    parsedSets.set(set, text);
  }
  return JSON.parse(text) as object[];
}

/** What scripts/build.sh runs in a compiled tree: each set's CRDs parsed once, into its folder. */
export function writeParsedCrdSets(): void {
  for (const set of CRD_SETS) writeFileSync(join(crdSetDir(set), PARSED_CRDS_FILE), JSON.stringify(loadCrdsFrom(crdSetDir(set))));
}

/**
 * Columns OpenShift's API server adds to `oc get` output beyond what the CRDs declare: MESSAGE on clusteroperators.
 * Pass as `extraPrinterColumns` so the column stays when the upstream CRD (which lacks it) replaces ours.
 */
export const OPENSHIFT_EXTRA_PRINTER_COLUMNS = {
  'config.openshift.io/clusteroperators': [
    { name: 'Message', type: 'string', description: 'Message of the Degraded condition.', jsonPath: '.status.conditions[?(@.type=="Degraded")].message' },
  ],
};
