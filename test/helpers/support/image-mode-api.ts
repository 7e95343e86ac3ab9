/**
 * The mock API server with the 4.20 CRDs (MachineOSConfig and MachineOSBuild validated as a real server validates
 * them) and a Cluster on it, with the namespaces image mode uses: what the image-mode helper tests start from.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { startApiServer, type RunningApiServer } from '../../../mock/index.js';
import { Cluster } from '../../../helpers/cluster.js';

const CRD_DIR = new URL('../../../reference/crds/4.20/', import.meta.url);

export async function startImageModeApi(namespaces: readonly string[] = ['openshift-config', 'openshift-machine-config-operator']): Promise<{ server: RunningApiServer; cluster: Cluster }> {
  const crds = readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml')).map((f) => parse(readFileSync(new URL(f, CRD_DIR), 'utf8')) as object);
  const server = await startApiServer({ crds, bookmarkIntervalMs: 500 });
  const path = join(mkdtempSync(join(tmpdir(), 'ocp-e2e-image-mode-api-')), 'kubeconfig');
  await server.writeKubeconfig(path);
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  const cluster = new Cluster(kc);
  for (const name of namespaces) await cluster.client.create('Namespace', { metadata: { name } });
  return { server, cluster };
}
