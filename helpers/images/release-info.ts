// The pullspec of one component image of a release (e.g. the base OS, `rhel-coreos-8`), the way the layering docs
// get it: `oc adm release info --image-for=TAG RELEASE` when `oc` is installed, otherwise by reading the payload's
// image-references straight from the registry. Both give the same answer, so the suite works with or without `oc`.
import { execa } from 'execa';
import { loadRegistryCredentials, type RegistryCredentials } from './credentials.js';
import { ImageHelperError } from './errors.js';
import { RegistryClient } from './registry-client.js';
import { BASE_OS_TAG_ALIASES, imageForTag, readReleasePayload } from './release-payload.js';

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
}

async function viaOc(releaseImage: string, tag: string, pullSecretFile?: string): Promise<string | undefined> {
  const names = BASE_OS_TAG_ALIASES[tag] ?? [tag];
  for (const name of names) {
    const args = ['adm', 'release', 'info', `--image-for=${name}`, releaseImage];
    if (pullSecretFile) args.push('-a', pullSecretFile);
    const result = await execa('oc', args, { reject: false, timeout: 120_000 });
    if (result.exitCode === 0 && result.stdout.trim()) return result.stdout.trim();
    if (!/no image tag|not found|does not exist/i.test(result.stderr) || name === names[names.length - 1]) {
      if (result.exitCode !== 0) {
        throw new ImageHelperError(`oc adm release info --image-for=${name} ${releaseImage} failed: ${result.stderr.trim().split('\n').slice(-3).join(' ')}`);
      }
    }
  }
  return undefined;
}

async function ocAvailable(): Promise<boolean> {
  const result = await execa('oc', ['version', '--client'], { reject: false, timeout: 10_000 }).catch(() => undefined);
  return Boolean(result && result.exitCode === 0);
}

/**
 * Pullspec of `tag` in the release `releaseImage`. `rhel-coreos` and `rhel-coreos-8` are accepted for each other
 * (4.13 renamed the base OS image). Throws ReleaseImageTagNotFoundError naming the tags the release has.
 */
export async function releaseImageFor(releaseImage: string, tag: string, opts: ReleaseImageForOptions = {}): Promise<string> {
  const via = opts.via ?? 'auto';
  if (via === 'oc' || (via === 'auto' && (await ocAvailable()))) {
    const found = await viaOc(releaseImage, tag, opts.pullSecretFile);
    if (found) return found;
    throw new ReleaseImageTagNotFoundError(releaseImage, tag, []);
  }
  const credentials = opts.credentials ?? (await loadRegistryCredentials(opts.pullSecretFile));
  const client = opts.client ?? new RegistryClient({ credentials });
  const payload = await readReleasePayload(client, releaseImage);
  const found = imageForTag(payload.images, tag);
  if (!found) throw new ReleaseImageTagNotFoundError(releaseImage, tag, Object.keys(payload.images));
  return found;
}
