// A release set as real images in a real registry: for each release the OS images its payload names (an RHCOS-like
// base OS image, machine-os-content, an extensions image, as the set says) and the release payload
// `<registry>/ocp/release:<version>` whose image-references name them by digest.
//
// Everything is cached by content: each image carries a label with the hash of what it was built from, and before
// building we ask the registry whether the tag already holds an image with that hash. A warm start (same registry
// storage, even in a new process or with an empty engine) therefore builds nothing and only reads a few manifests.
import { busyboxBaseTag, ensureBusyboxBase } from '../../lib/oci/base-image.js';
import { buildImage, removeImage } from '../../lib/oci/build.js';
import type { RegistryCredentials } from '../../lib/oci/credentials.js';
import { engineOf, type EngineWhenNeeded } from '../../lib/oci/engine.js';
import { ImageHelperError, ImageNotFoundError } from '../../lib/oci/errors.js';
import { pushImage } from '../../lib/oci/push.js';
import { RegistryClient } from '../../lib/oci/image-files.js';
import { REFERENCE_TRUST_ENV } from '../registry.js';
import { mirroredPayloadTag, upstreamPullspec, upstreamReleasePullspec } from './disconnected.js';
import { CONTENT_HASH_LABEL, osImageRecipes, payloadRecipe, type ImageRecipe } from './recipes.js';
import type { ReleaseInfo } from './release-info.js';
import { previousVersions, releasePath, type ReleaseDefinition, type ReleaseSet } from './release-set.js';

/** Engine-side name of built release images, keyed by content hash. */
export const LOCAL_CACHE_REPOSITORY = 'localhost/ocp-e2e/release-images';

export interface EnsureReleasesOptions {
  /** The releases to make: a profile's `releases`. */
  releases: ReleaseSet;
  /** Needed only when something must be built (asked for only then). */
  engine?: EngineWhenNeeded;
  /** `127.0.0.1:PORT` or a started local registry. */
  registry: string | { address: string };
  /** For registries that want credentials. */
  credentials?: RegistryCredentials;
  /** CAs to trust besides the system's (the reference cluster's own). */
  caPems?: string[];
  log?: (message: string) => void;
  /** Build timeout per image. */
  timeoutMs?: number;
  /** Ignore every cache (registry, engine images, engine layer cache) and build everything again. */
  forceRebuild?: boolean;
  /**
   * Payloads as a disconnected cluster gets them (disconnected.ts): naming quay.io's pullspecs of the same digests,
   * tagged `<version>-x86_64` beside the connected ones; the releases returned are named as the cluster sees them.
   */
  disconnected?: boolean;
}

/** The releases of a set as built: current and next, and every release of the path in order (current first). */
export interface BuiltReleases {
  current: ReleaseInfo;
  next: ReleaseInfo;
  path: ReleaseInfo[];
}

export interface EnsureReleasesResult extends BuiltReleases {
  /** Tags pushed by this call, built first unless the engine still had them (empty on a warm start). */
  built: string[];
  durationMs: number;
}

export class ReleaseBuildError extends ImageHelperError {}

/** Asks the registry whether `tag` already holds an image built from `contentHash`; returns its digest if so. */
async function cachedDigest(client: RegistryClient, tag: string, contentHash: string): Promise<string | undefined> {
  try {
    const { digest, manifest } = await client.imageManifest(tag);
    const config = JSON.parse((await client.blob(tag, manifest.config.digest)).toString('utf8')) as {
      config?: { Labels?: Record<string, string> };
    };
    return config.config?.Labels?.[CONTENT_HASH_LABEL] === contentHash ? digest : undefined;
  } catch (err) {
    if (err instanceof ImageNotFoundError) return undefined;
    throw err;
  }
}

/**
 * Builds and pushes (only what the registry lacks) the OS images and payloads of every release of the set's path, and returns
 * their pullspecs. OS images are returned by digest; payloads by tag (`<registry>/ocp/release:<version>`), the form
 * `oc adm upgrade --to-image` is given in the report.
 */
export async function ensureReleases(opts: EnsureReleasesOptions): Promise<EnsureReleasesResult> {
  const started = Date.now();
  const registry = typeof opts.registry === 'string' ? opts.registry : opts.registry.address;
  const ensure = imageEnsurer(opts);
  const base = busyboxBaseTag();
  const one = async (release: ReleaseDefinition): Promise<ReleaseInfo> => {
    const recipes = await osImageRecipes(registry, release.version, release.osImageTags, base.tag, release.rhel);
    const pullspecs = await Promise.all(Object.values(recipes).map((recipe) => ensure.image(recipe)));
    const osImages = Object.fromEntries(Object.keys(recipes).map((tag, i) => [tag, pullspecs[i]!]));
    const previous = previousVersions(opts.releases, release.version);
    if (opts.disconnected) {
      const named = Object.fromEntries(Object.entries(osImages).map(([tag, pullspec]) => [tag, upstreamPullspec(pullspec)]));
      const payload = await payloadRecipe(registry, release, named, previous, mirroredPayloadTag(registry, release.version));
      const pushed = await ensure.image(payload);
      return { version: release.version, image: upstreamReleasePullspec(pushed.slice(pushed.indexOf('@') + 1)), osImages: named, previous };
    }
    const payload = await payloadRecipe(registry, release, osImages, previous);
    await ensure.image(payload);
    return { version: release.version, image: payload.tag, osImages, previous };
  };
  const path = await Promise.all(releasePath(opts.releases).map(one));
  return { current: path[0]!, next: path[1]!, path, built: ensure.built, durationMs: Date.now() - started };
}

/** Pushes a recipe's image unless the registry has it already; builds it first unless the engine keeps it. */
function imageEnsurer(opts: EnsureReleasesOptions): { image(recipe: ImageRecipe): Promise<string>; built: string[] } {
  const client = new RegistryClient({ credentials: opts.credentials, caPems: opts.caPems, env: REFERENCE_TRUST_ENV });
  const log = opts.log ?? (() => undefined);
  const built: string[] = [];
  let baseReady: Promise<unknown> | undefined;
  const image = async (recipe: ImageRecipe): Promise<string> => {
    const repo = recipe.tag.slice(0, recipe.tag.lastIndexOf(':'));
    const cached = opts.forceRebuild ? undefined : await cachedDigest(client, recipe.tag, recipe.contentHash);
    if (cached) return `${repo}@${cached}`;
    const engine = await engineOf(opts.engine);
    if (!engine) {
      throw new ReleaseBuildError(`${recipe.tag} is not in the registry (or is stale) and no container engine was given to build it`);
    }
    // The engine keeps one image per content hash under a registry-independent name, so a new registry (another
    // port, a wiped storage folder) costs a push, not a rebuild. The registry tag is only there for the push.
    const localTag = `${LOCAL_CACHE_REPOSITORY}:${recipe.contentHash.slice(0, 24)}`;
    const previousId = await engine.getImage(localTag).inspect().then((i) => i.Id, () => undefined);
    if (opts.forceRebuild || !previousId) {
      if (recipe.needsBase) await (baseReady ??= ensureBusyboxBase(engine));
      log(`building ${recipe.tag}`);
      await buildImage(engine, {
        contextDir: recipe.contextDir,
        containerfile: recipe.containerfile,
        files: recipe.files,
        buildArgs: recipe.buildArgs,
        labels: recipe.labels,
        tag: localTag,
        timeoutMs: opts.timeoutMs ?? 120_000,
        // A payload never uses the engine's build cache: its content names this registry, so the cache cannot
        // help, and a step it found there (`ARG RELEASE_VERSION` after `FROM scratch`, the same for every cluster of
        // that release) may be another cluster's intermediate image, which that cluster's removal of its payload
        // (below) takes with it: with six clusters starting at once a build failed "unable to find image".
        noCache: opts.forceRebuild || !recipe.needsBase,
      });
      // A forced rebuild leaves the old image without a name: remove it rather than leak it.
      if (previousId) await removeImage(engine, previousId).catch(() => undefined);
    }
    await engine.getImage(localTag).tag({ repo, tag: recipe.tag.slice(repo.length + 1) });
    let pushed: Awaited<ReturnType<typeof pushImage>>;
    let pushedDigest: string | undefined;
    try {
      pushed = await pushImage(engine, recipe.tag, { auth: opts.credentials, registryClient: client });
      pushedDigest = pushed.digest;
    } finally {
      // Drop the registry-specific names (tag and the digest reference the push recorded); the cache tag stays.
      await removeImage(engine, recipe.tag).catch(() => undefined);
      if (pushedDigest) await removeImage(engine, `${repo}@${pushedDigest}`).catch(() => undefined);
      // Payloads name registry-specific pullspecs, so their cache entry would only serve this registry: drop it.
      if (!recipe.needsBase) await removeImage(engine, localTag).catch(() => undefined);
    }
    built.push(recipe.tag);
    log(`pushed ${pushed.pullspec}`);
    return pushed.pullspec;
  };
  return { image, built };
}
