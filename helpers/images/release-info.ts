// The pullspec of one component image of a release (e.g. the base OS, `rhel-coreos-8`), the way the layering docs
// get it: `oc adm release info --image-for=TAG RELEASE` when `oc` is installed, otherwise by reading the payload's
// image-references straight from the registry. Both give the same answer, so the suite works with or without `oc`.
// On a cluster with mirror sets both read where the nodes pull (oc through --icsp-file, which oc 4.12 has).
// Without any, a path through oc gets no --icsp-file.
import { execa } from 'execa';
import { hasCli } from '../cli.js';
import { loadRegistryCredentials, type RegistryCredentials } from '../../lib/oci/credentials.js';
import { ImageHelperError } from '../../lib/oci/errors.js';
import type { RegistryClient } from '../../lib/oci/image-files.js';
import { MirroredRegistryClient } from '../../lib/oci/mirrored-pull.js';
import type { MirrorSets } from '../../lib/oci/mirrors.js';
import { BASE_OS_TAG_ALIASES, readReleasePayload, taggedImage } from '../../lib/oci/release-payload.js';

export class ReleaseImageTagNotFoundError extends ImageHelperError {
  constructor(
    readonly releaseImage: string,
    readonly tag: string,
    readonly available: string[],
    detail?: string,
  ) {
    super(
      `Release ${releaseImage} has no image named "${tag}". ` +
        (detail
          ? `oc said: ${detail}`
          : available.length
            ? `It has: ${available.slice(0, 40).join(', ')}${available.length > 40 ? ', …' : ''}`
            : 'It names no images.'),
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

/** Asks `oc`; undefined when the release has none of the tag's names (oc's "no image tag" answer). */
async function viaOc(releaseImage: string, tag: string, pullSecretFile?: string, icspFile?: string): Promise<{ pullspec?: string; tag?: string; notFound: string }> {
  let notFound = '';
  for (const name of BASE_OS_TAG_ALIASES[tag] ?? [tag]) {
    const args = ['adm', 'release', 'info', `--image-for=${name}`, releaseImage];
    if (pullSecretFile) args.push('-a', pullSecretFile);
    if (icspFile) args.push(`--icsp-file=${icspFile}`);
    const result = await execa('oc', args, { reject: false, timeout: 120_000 });
    if (result.exitCode === 0 && result.stdout.trim()) return { pullspec: result.stdout.trim(), tag: name, notFound };
    const stderr = result.stderr.trim();
    if (!/no image tag|not found in|does not exist in/i.test(stderr)) {
      throw new ImageHelperError(`oc ${args.slice(0, 4).join(' ')} ${releaseImage} failed (exit ${result.exitCode}): ${stderr.split('\n').slice(-3).join(' ')}`);
    }
    notFound = stderr;
  }
  return { notFound };
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
  const via = opts.via ?? 'auto';
  if (via === 'oc' || (via === 'auto' && (await hasCli('oc')))) {
    const found = await viaOc(releaseImage, tag, opts.pullSecretFile, opts.icspFile);
    if (found.pullspec) return { pullspec: found.pullspec, tag: found.tag! };
    throw new ReleaseImageTagNotFoundError(releaseImage, tag, [], found.notFound);
  }
  const credentials = opts.credentials ?? (await loadRegistryCredentials(opts.pullSecretFile));
  const client = opts.client ?? new MirroredRegistryClient({ credentials, mirrors: opts.mirrors });
  const payload = await readReleasePayload(client, releaseImage);
  const found = taggedImage(payload.images, tag);
  if (!found) throw new ReleaseImageTagNotFoundError(releaseImage, tag, Object.keys(payload.images));
  return found;
}
