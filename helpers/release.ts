/**
 * Step 1 of the report: the OS image of a release, and its extensions image (the packages a layered image may add),
 * read from its payload (`oc adm release info -o json` when `oc` exists, else the payload's image-references read
 * from the registry) with the session's registry access. Delegates to helpers/images, which
 * owns reading release payloads.
 *
 * Release images live in registries that want credentials: they are read with the credentials of builds
 * (--pull-secret, completed by the cluster's pull secret), which `oc` gets as `-a <file>`: a private temporary file,
 * removed right after.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Cluster } from './cluster.js';
import { buildCredentials, type RegistryAccess } from './credentials.js';
import { imageTaggedIn, releaseImages } from './images/release-info.js';
import type { RegistryCredentials } from '../lib/oci/credentials.js';
import { parseImageRef } from '../lib/oci/image-ref.js';
import { MirroredRegistryClient } from '../lib/oci/mirrored-pull.js';
import type { MirrorSets } from '../lib/oci/mirrors.js';
import { suiteMirrorSets, withIcspFile } from './mirror-sets.js';
import type { ExpectedFile } from './facts/node.js';

/** The tag of a 4.12 release's base OS image (4.13+ call it rhel-coreos). */
export const BASE_OS_TAG = 'rhel-coreos-8';
/** The tag of a 4.12 release's extensions image, an rpm-md repository of extra packages (4.13+: rhel-coreos-extensions). */
export const EXTENSIONS_TAG = 'rhel-coreos-8-extensions';
/** The tag of the old-format OS image (an ostree commit in a container), the MCO's default before the new format; gone in 4.13. */
export const MACHINE_OS_CONTENT_TAG = 'machine-os-content';

export async function releaseOsImage(access: RegistryAccess, releaseImage: string, cluster: Cluster): Promise<string> {
  return releaseImageOf(access, releaseImage, cluster, BASE_OS_TAG);
}

export async function releaseExtensionsImage(access: RegistryAccess, releaseImage: string, cluster: Cluster): Promise<string> {
  return releaseImageOf(access, releaseImage, cluster, EXTENSIONS_TAG);
}

/**
 * The extensions image of the release whose base OS image is `baseImage`: the cluster's desired release, else one of
 * its history (a layered image is built on the release the cluster runs). Throws when none of them has that base.
 */
export async function extensionsImageOfBase(access: RegistryAccess, cluster: Cluster, baseImage: string): Promise<string> {
  const cv = await cluster.getClusterVersion();
  const releases = [...new Set([cv.status?.desired?.image, ...(cv.status?.history ?? []).map((h) => h.image)].filter((i): i is string => Boolean(i)))];
  for (const release of releases) {
    if ((await releaseOsImage(access, release, cluster)) === baseImage) return releaseExtensionsImage(access, release, cluster);
  }
  throw new Error(`none of the cluster's releases (${releases.join(', ') || 'none in clusterversion/version'}) has ${baseImage} as its ${BASE_OS_TAG}: cannot tell which extensions image goes with it`);
}

/** The pullspec the release `releaseImage` lists under `tag`, read with the session's registry access. */
export async function releaseImageOf(access: RegistryAccess, releaseImage: string, cluster: Cluster, tag: string): Promise<string> {
  return (await releaseImageTaggedOf(access, releaseImage, cluster, tag)).pullspec;
}

/** Like releaseImageOf, with the name the release gives it (4.13 calls rhel-coreos-8 `rhel-coreos`). */
export async function releaseImageTaggedOf(access: RegistryAccess, releaseImage: string, cluster: Cluster, tag: string): Promise<{ pullspec: string; tag: string }> {
  const credentials = await buildCredentials(cluster, access);
  // read where the nodes pull: through the cluster's (or the user's) mirror sets
  const mirrors = await suiteMirrorSets(cluster);
  const images = await rememberedImages(releaseImage, credentials, mirrors, () => askRelease(releaseImage, credentials, mirrors));
  return imageTaggedIn(releaseImage, images, tag);
}

/**
 * Releases' image lists already read in this process, by the hash of everything that shapes one: the release as
 * named, the credentials and mirror sets it was read with (the pull-secret and ICSP files oc gets are written from
 * them) and PATH (which oc, or none). Each `oc adm release info` is a Go process of 0.1-0.3 s of CPU, and a spec asks
 * the same release more than once (its OS image, its extensions image, then extensionsImageOfBase looking for the
 * release of that base).
 */
const answers = new Map<string, { digest?: string; images: Record<string, string> }>();
/** Keys whose release the registry client could not resolve to a digest: asked every time, as before (no check that can fail again). */
const uncheckable = new Set<string>();

/**
 * A release named by digest never changes, so its list is kept. One named by tag is kept with the digest the tag
 * pointed at before and after it was read (a tag moved meanwhile keeps nothing), and used again only while the
 * registry still says that digest: a re-pushed tag is read again.
 */
async function rememberedImages(
  releaseImage: string,
  credentials: RegistryCredentials,
  mirrors: MirrorSets,
  ask: () => Promise<Record<string, string>>,
): Promise<Record<string, string>> {
  const key = createHash('sha256')
    .update(JSON.stringify([releaseImage, credentials.toDockerConfigJson(), mirrors.rules, process.env.PATH ?? '']))
    .digest('hex');
  let byDigest: boolean;
  try {
    byDigest = parseImageRef(releaseImage).digest !== undefined;
  } catch {
    return ask(); // not a reference the client reads: oc (or the registry path) says what is wrong with it
  }
  let client: MirroredRegistryClient | undefined;
  const tagDigest = async (): Promise<string | undefined> => {
    if (byDigest || uncheckable.has(key)) return undefined;
    client ??= new MirroredRegistryClient({ credentials, mirrors });
    return client.manifestDigest(releaseImage).catch(() => {
      uncheckable.add(key);
      return undefined;
    });
  };
  const known = answers.get(key);
  if (known && (byDigest || (known.digest !== undefined && known.digest === (await tagDigest())))) return { ...known.images };
  answers.delete(key);
  const before = await tagDigest();
  const images = await ask();
  if (byDigest) answers.set(key, { images: { ...images } });
  else if (before !== undefined && before === (await tagDigest())) answers.set(key, { digest: before, images: { ...images } });
  return images;
}

/** Reads the release's images through oc or the registry (helpers/images/release-info.ts), oc with the files it reads. */
async function askRelease(releaseImage: string, credentials: RegistryCredentials, mirrors: MirrorSets): Promise<Record<string, string>> {
  return withIcspFile(mirrors, async (icspFile) => {
    if (!credentials.hosts().length) return releaseImages(releaseImage, { credentials, mirrors, icspFile });
    const dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-pull-secret-'));
    try {
      const file = path.join(dir, 'config.json');
      await writeFile(file, credentials.toDockerConfigJson(), { mode: 0o600 });
      return await releaseImages(releaseImage, { credentials, pullSecretFile: file, mirrors, icspFile });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

/** The registry client of the suite's own reads: the build's credentials, through the run's mirror sets. */
export async function suiteRegistryClient(access: RegistryAccess, cluster: Cluster): Promise<MirroredRegistryClient> {
  return new MirroredRegistryClient({ credentials: await buildCredentials(cluster, access), mirrors: await suiteMirrorSets(cluster) });
}

/** Where an RHCOS image keeps its os-release (`/etc/os-release` links to it). */
export const OS_RELEASE_PATH = '/usr/lib/os-release';

/**
 * The OS an image carries, as a node shows it: its `/usr/lib/os-release` (the file `/etc/os-release` points to on
 * RHCOS) with mode and content, so a node that boots a build on that image must hold the same file.
 */
export async function osReleaseOf(access: RegistryAccess, cluster: Cluster, image: string): Promise<ExpectedFile> {
  const client = await suiteRegistryClient(access, cluster);
  const found = await client.readFileEntry(image, OS_RELEASE_PATH);
  if (!found) throw new Error(`${image} has no ${OS_RELEASE_PATH}: it is not an RHCOS image`);
  return { path: OS_RELEASE_PATH, mode: found.mode, contents: found.data.toString('utf8') };
}
