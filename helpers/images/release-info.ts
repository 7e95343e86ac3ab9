// The component images of a release (e.g. the base OS, `rhel-coreos-8`), as `oc adm release info` lists them when
// `oc` is installed (one `-o json` answer names every image: asking `--image-for=TAG` once per image, as the layering
// docs do by hand, started one Go process per question), otherwise by reading the payload's image-references straight
// from the registry. Both read the same image-references, so the suite works with or without `oc`. On a cluster with
// mirror sets both read where the nodes pull (oc through --icsp-file, which oc 4.12 has); without any, oc gets none.
import { execa } from 'execa';
import { hasCli } from '../cli.js';
import { loadRegistryCredentials, type RegistryCredentials } from '../../lib/oci/credentials.js';
import { ImageHelperError } from '../../lib/oci/errors.js';
import type { RegistryClient } from '../../lib/oci/image-files.js';
import { MirroredRegistryClient } from '../../lib/oci/mirrored-pull.js';
import type { MirrorSets } from '../../lib/oci/mirrors.js';
import { readReleasePayload, taggedImage } from '../../lib/oci/release-payload.js';

export class ReleaseImageTagNotFoundError extends ImageHelperError {
  constructor(
    readonly releaseImage: string,
    readonly tag: string,
    readonly available: string[],
  ) {
    super(
      `Release ${releaseImage} has no image named "${tag}". ` +
        (available.length ? `It has: ${available.slice(0, 40).join(', ')}${available.length > 40 ? ', …' : ''}` : 'It names no images.'),
    );
  }
}

export interface ReleaseImageForOptions {
  /** Pull secret / docker config file used for the registry (and passed to `oc -a`). */
  pullSecretFile?: string;
  /** Credentials already loaded (used when reading the registry directly). */
  credentials?: RegistryCredentials;
  /** Client to read the registry with; default one built from the credentials. */
  client?: RegistryClient;
  /** `auto` (default): oc when on PATH; `oc` or `registry` to force one. */
  via?: 'auto' | 'oc' | 'registry';
  /** The mirror sets to read through (helpers/mirror-sets.ts). */
  mirrors?: MirrorSets;
  /** An ImageContentSourcePolicy file of those mirror sets, for `oc --icsp-file` (helpers/mirror-sets.ts withIcspFile). */
  icspFile?: string;
}

/** Every image `oc adm release info -o json` lists in the release's image-references: name → pullspec. */
async function imagesViaOc(releaseImage: string, pullSecretFile?: string, icspFile?: string): Promise<Record<string, string>> {
  const args = ['adm', 'release', 'info', '-o', 'json', releaseImage];
  if (pullSecretFile) args.push('-a', pullSecretFile);
  if (icspFile) args.push(`--icsp-file=${icspFile}`);
  const what = `oc adm release info -o json ${releaseImage}`;
  const result = await execa('oc', args, { reject: false, timeout: 120_000 });
  if (result.exitCode !== 0) {
    throw new ImageHelperError(`${what} failed (exit ${result.exitCode}): ${result.stderr.trim().split('\n').slice(-3).join(' ') || '(no message)'}`);
  }
  let tags: unknown;
  try {
    tags = (JSON.parse(result.stdout) as { references?: { spec?: { tags?: unknown } } }).references?.spec?.tags;
  } catch {
    throw new ImageHelperError(`${what} did not print JSON: ${result.stdout.trim().slice(0, 200) || '(nothing)'}`);
  }
  if (!Array.isArray(tags)) throw new ImageHelperError(`${what}: its answer has no references.spec.tags (the release's image-references)`);
  const images: Record<string, string> = {};
  for (const tag of tags as Array<{ name?: unknown; from?: { name?: unknown } }>) {
    if (typeof tag?.name === 'string' && typeof tag.from?.name === 'string') images[tag.name] = tag.from.name;
  }
  return images;
}

/**
 * Pullspec of `tag` in the release `releaseImage`. `rhel-coreos` and `rhel-coreos-8` are accepted for each other
 * (4.13 renamed the base OS image). Throws ReleaseImageTagNotFoundError naming the tags the release has.
 */
export async function releaseImageFor(releaseImage: string, tag: string, opts: ReleaseImageForOptions = {}): Promise<string> {
  return (await releaseImageTagged(releaseImage, tag, opts)).pullspec;
}

/** Like releaseImageFor, with the name the release gives the image (`rhel-coreos` when a 4.13 release is asked for `rhel-coreos-8`). */
export async function releaseImageTagged(releaseImage: string, tag: string, opts: ReleaseImageForOptions = {}): Promise<{ pullspec: string; tag: string }> {
  return imageTaggedIn(releaseImage, await releaseImages(releaseImage, opts), tag);
}

/** `tag` (or its other OS image name) among a release's images; ReleaseImageTagNotFoundError when it has neither. */
export function imageTaggedIn(releaseImage: string, images: Record<string, string>, tag: string): { pullspec: string; tag: string } {
  const found = taggedImage(images, tag);
  if (!found) throw new ReleaseImageTagNotFoundError(releaseImage, tag, Object.keys(images));
  return found;
}

/** Every image the release names (its image-references): through oc when it is installed, else from the registry. */
export async function releaseImages(releaseImage: string, opts: ReleaseImageForOptions = {}): Promise<Record<string, string>> {
  const via = opts.via ?? 'auto';
  if (via === 'oc' || (via === 'auto' && (await hasCli('oc')))) return imagesViaOc(releaseImage, opts.pullSecretFile, opts.icspFile);
  const credentials = opts.credentials ?? (await loadRegistryCredentials(opts.pullSecretFile));
  const client = opts.client ?? new MirroredRegistryClient({ credentials, mirrors: opts.mirrors });
  return (await readReleasePayload(client, releaseImage)).images;
}
