/**
 * The project's OpenShift CRD manifests (ClusterOperator, ClusterVersion, MachineConfig, MachineConfigPool,
 * ControllerConfig, KubeletConfig, ContainerRuntimeConfig), read from the YAML files next to this module, ready to pass as `crds` to startApiServer.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
 * The JSON of loadCrdsFrom(CRD_DIR) that scripts/build.sh writes into the compiled tree: parsing the YAML costs every
 * reference cluster's start about 150 ms of CPU, the JSON 2. The sources (tsx) have no copy and parse the YAML.
 */
export const PARSED_CRDS_FILE = 'crds.parsed.json';

/** The project's own OpenShift CRDs. */
export function openShiftCrds(): object[] {
  const parsed = join(CRD_DIR, PARSED_CRDS_FILE);
  return existsSync(parsed) ? (JSON.parse(readFileSync(parsed, 'utf8')) as object[]) : loadCrdsFrom(CRD_DIR);
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
