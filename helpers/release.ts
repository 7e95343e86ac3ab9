/**
 * Step 1 of the report: the OS image of a release, read from its payload (`oc adm release info --image-for=
 * rhel-coreos-8` when `oc` exists, else the payload's image-references read from the registry) with the session's
 * registry access. Delegates to helpers/images, which owns reading release payloads.
 *
 * Release images live in registries that want credentials: they are read with the credentials of builds
 * (--pull-secret, completed by the cluster's pull secret), which `oc` gets as `-a <file>`: a private temporary file,
 * removed right after.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Cluster } from './cluster.js';
import { buildCredentials, type RegistryAccess } from './credentials.js';
import { releaseImageFor } from './images/release-info.js';

/** The tag of a 4.12 release's base OS image (4.13+ call it rhel-coreos). */
export const BASE_OS_TAG = 'rhel-coreos-8';

export async function releaseOsImage(access: RegistryAccess, releaseImage: string, cluster: Cluster): Promise<string> {
  const credentials = await buildCredentials(cluster, access);
  if (!credentials.hosts().length) return releaseImageFor(releaseImage, BASE_OS_TAG, { credentials });
  const dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-pull-secret-'));
  try {
    const file = path.join(dir, 'config.json');
    await writeFile(file, credentials.toDockerConfigJson(), { mode: 0o600 });
    return await releaseImageFor(releaseImage, BASE_OS_TAG, { credentials, pullSecretFile: file });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
