/**
 * What a build says of itself in the image it pushed: upstream's template labels every build with the rendered
 * config, the pool and the base it was built FROM (`LABEL baseOSContainerImage=<base>`, modern-mco.md §1.5), read
 * from the pushed image's config through the registry API with the run's credentials.
 */
import { RegistryClient } from '../../lib/oci/image-files.js';
import type { Cluster } from '../cluster.js';
import { buildCredentials, type RegistryAccess } from '../credentials.js';
import { fails, holds, type Fact } from '../facts/fact.js';

export const BuildLabels = { machineConfig: 'machineconfig', pool: 'machineconfigpool', base: 'baseOSContainerImage' } as const;

/** The labels of the image at `pullspec`. */
export async function imageLabels(access: RegistryAccess, cluster: Cluster, pullspec: string): Promise<Record<string, string>> {
  const client = new RegistryClient({ credentials: await buildCredentials(cluster, access) });
  const config = (await client.imageConfig(pullspec)) as { config?: { Labels?: Record<string, string> | null } };
  return config.config?.Labels ?? {};
}

/** The build's image is labelled as built FROM `base` for `rendered` of `pool`. */
export function builtFrom(image: string, labels: Record<string, string>, expected: { base: string; rendered: string; pool: string }): Fact {
  const wrong = [
    labels[BuildLabels.base] !== expected.base ? `${BuildLabels.base}=${labels[BuildLabels.base] ?? '(none)'} (expected ${expected.base})` : '',
    labels[BuildLabels.machineConfig] !== expected.rendered ? `${BuildLabels.machineConfig}=${labels[BuildLabels.machineConfig] ?? '(none)'} (expected ${expected.rendered})` : '',
    labels[BuildLabels.pool] !== expected.pool ? `${BuildLabels.pool}=${labels[BuildLabels.pool] ?? '(none)'} (expected ${expected.pool})` : '',
  ].filter(Boolean);
  if (wrong.length) return fails(`image ${image} is labelled ${wrong.join(', ')}`);
  return holds(`image ${image} was built FROM ${expected.base} for ${expected.rendered} of pool ${expected.pool}`);
}
