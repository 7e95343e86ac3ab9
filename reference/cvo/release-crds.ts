/**
 * The CRDs a release payload carries, applied by the CVO when it starts applying that payload: a real CVO applies
 * each manifest at its run level (ClusterOperator and ClusterVersion at 0000_00, the config operator's at 0000_10, the
 * MCO's at 0000_80, each before the component that uses them), so by the time the new machine-config operator runs,
 * its release's MachineConfigNode, MachineConfigPool and ControllerConfig schemas are served. The reference applies the
 * whole set first, before the MCO's manifests (crds/index.ts picks the set by the release's version).
 */
import type { KubeClient, KubeObject } from '../../lib/kube/client.js';
import { openShiftCrds } from '../crds/index.js';
import { semanticEqual } from '../equality.js';

type Crd = KubeObject & { spec?: unknown };

/** Creates or replaces each CRD of the release's set; a CRD the server already serves as the payload says is left alone. */
export async function applyReleaseCrds(client: Pick<KubeClient, 'get' | 'create' | 'replace'>, releaseVersion: string): Promise<void> {
  for (const crd of openShiftCrds(releaseVersion) as Crd[]) {
    const name = crd.metadata.name!;
    const existing = await client.get<Crd>('CustomResourceDefinition', name);
    if (!existing) {
      await client.create('CustomResourceDefinition', crd);
    } else if (!sameManifest(existing, crd)) {
      await client.replace('CustomResourceDefinition', { ...crd, metadata: { ...crd.metadata, resourceVersion: existing.metadata.resourceVersion } });
    }
  }
}

/** Whether the served CRD already is the manifest: its versions (schemas, columns) and names (the parts a release changes). */
function sameManifest(served: Crd, manifest: Crd): boolean {
  const parts = (c: Crd) => {
    const spec = (c.spec ?? {}) as { versions?: unknown; names?: unknown };
    return { versions: spec.versions, names: spec.names, annotations: c.metadata.annotations ?? {} };
  };
  return semanticEqual(parts(served), parts(manifest));
}
