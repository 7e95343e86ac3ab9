// The two releases of the bug report as real images in a real registry: for each release an RHCOS-like base OS image
// (rhel-coreos-8), a distinct machine-os-content image, an extensions image, and the release payload
// `<registry>/ocp/release:<version>` whose image-references name them by digest.
//
// Everything is cached by content: each image carries a label with the hash of what it was built from, and before
// building we ask the registry whether the tag already holds an image with that hash. A warm start (same registry
// storage, even in a new process or with an empty engine) therefore builds nothing and only reads a few manifests.
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { busyboxBaseTag, ensureBusyboxBase } from '../../lib/oci/base-image.js';
import { buildImage, removeImage } from '../../lib/oci/build.js';
import type { RegistryCredentials } from '../../lib/oci/credentials.js';
import type { Engine } from '../../lib/oci/engine.js';
import { ImageHelperError, ImageNotFoundError } from '../../lib/oci/errors.js';
import { pushImage } from '../../lib/oci/push.js';
import { RegistryClient } from '../../lib/oci/registry-client.js';
import {
  IMAGE_REFERENCES_PATH,
  imageForTag,
  makeImageReferences,
  readReleasePayload,
  RELEASE_METADATA_PATH,
  type ReleaseMetadata,
} from '../../lib/oci/release-payload.js';

export { readOsImageContent, parseOsRelease, parseRpmDb, RPMDB_PATH, type OsImageContent, type InstalledRpm } from './os-content.js';

export const CURRENT_RELEASE = '4.12.0-0.nightly-2022-09-08-002336';
export const NEXT_RELEASE = '4.12.0-0.nightly-2022-09-12-152748';
export const OS_REPOSITORY = 'openshift-release-dev/ocp-v4.0-art-dev';
export const PAYLOAD_REPOSITORY = 'ocp/release';
export const CONTENT_HASH_LABEL = 'ocp-e2e.io/content-hash';
/** Engine-side name of built release images, keyed by content hash. */
export const LOCAL_CACHE_REPOSITORY = 'localhost/ocp-e2e/release-images';
/** Bump to force a rebuild of every release image when the recipe below changes. */
const RECIPE_VERSION = '1';

const IMAGES_DIR = fileURLToPath(new URL('../../images/', import.meta.url));

export interface ReleaseInfo {
  version: string;
  /** Payload pullspec, `<registry>/ocp/release:<version>` (or whatever reference it was read from). */
  image: string;
  /** Pullspecs by digest. */
  rhelCoreos8: string;
  machineOsContent: string;
  extensions?: string;
  /** Versions this release says it can be updated from (release-metadata `previous`). */
  previous?: string[];
}

export interface EnsureReleasesOptions {
  /** Needed only when something must be built. */
  engine?: Engine;
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
}

export interface EnsureReleasesResult {
  current: ReleaseInfo;
  next: ReleaseInfo;
  /** Tags pushed by this call, built first unless the engine still had them (empty on a warm start). */
  built: string[];
  durationMs: number;
}

export class ReleaseBuildError extends ImageHelperError {}

interface ImageRecipe {
  /** Full tag to push. */
  tag: string;
  contextDir: string;
  containerfile: string;
  files?: Record<string, string>;
  buildArgs: Record<string, string>;
  labels: Record<string, string>;
  /** Hash of every input, stored as a label. */
  contentHash: string;
  /** Whether it is built FROM the busybox base (payloads are FROM scratch). */
  needsBase: boolean;
}

/** Hash of a folder's files: relative path, executable bit and content, in sorted order. */
async function hashTree(dir: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (rel: string): Promise<void> => {
    const entries = (await readdir(path.join(dir, rel), { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const childRel = path.posix.join(rel, entry.name);
      if (entry.isDirectory()) {
        hash.update(`d:${childRel}\n`);
        await walk(childRel);
      } else if (entry.isFile()) {
        const full = path.join(dir, childRel);
        const mode = (await stat(full)).mode & 0o111 ? 'x' : '-';
        hash.update(`f:${childRel}:${mode}\n`);
        hash.update((await readFile(full)) as unknown as Uint8Array);
      }
    }
  };
  await walk('');
  return hash.digest('hex');
}

function hashOf(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

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

async function osImageRecipes(registry: string, version: string, baseTag: string): Promise<Record<'rhelCoreos8' | 'machineOsContent' | 'extensions', ImageRecipe>> {
  const contextDir = path.join(IMAGES_DIR, 'rhcos-like');
  const treeHash = await hashTree(contextDir);
  const make = (kind: string, containerfile: string, extraArgs: Record<string, string>): ImageRecipe => {
    const buildArgs = { BASE_IMAGE: baseTag, RELEASE_VERSION: version, ...extraArgs };
    const contentHash = hashOf({ RECIPE_VERSION, treeHash, containerfile, buildArgs });
    return {
      tag: `${registry}/${OS_REPOSITORY}:${version}-${kind}`,
      contextDir,
      containerfile,
      buildArgs,
      labels: { [CONTENT_HASH_LABEL]: contentHash, 'io.openshift.release': version },
      contentHash,
      needsBase: true,
    };
  };
  return {
    rhelCoreos8: make('rhel-coreos-8', 'Containerfile', { IMAGE_KIND: 'rhel-coreos-8' }),
    machineOsContent: make('machine-os-content', 'Containerfile', { IMAGE_KIND: 'machine-os-content' }),
    extensions: make('rhel-coreos-8-extensions', 'Containerfile.extensions', {}),
  };
}

/** release-metadata of a release: the next release lists the current one as an update source. */
export function releaseMetadata(version: string): ReleaseMetadata {
  return {
    kind: 'cincinnati-metadata-v0',
    version,
    previous: version === NEXT_RELEASE ? [CURRENT_RELEASE] : [],
    metadata: { url: `https://amd64.ocp.releases.ci.openshift.org/releasestream/4.12.0-0.nightly/release/${version}` },
  };
}

async function payloadRecipe(registry: string, version: string, os: { rhelCoreos8: string; machineOsContent: string; extensions: string }): Promise<ImageRecipe> {
  const contextDir = path.join(IMAGES_DIR, 'release-payload');
  const imageReferences = JSON.stringify(
    makeImageReferences(version, {
      'rhel-coreos-8': os.rhelCoreos8,
      'rhel-coreos-8-extensions': os.extensions,
      'machine-os-content': os.machineOsContent,
    }),
    null,
    2,
  );
  const metadata = JSON.stringify(releaseMetadata(version), null, 2);
  const files = {
    [IMAGE_REFERENCES_PATH.replace(/^\//, '')]: imageReferences + '\n',
    [RELEASE_METADATA_PATH.replace(/^\//, '')]: metadata + '\n',
  };
  const buildArgs = { RELEASE_VERSION: version };
  const contentHash = hashOf({ RECIPE_VERSION, tree: await hashTree(contextDir), files, buildArgs });
  return {
    tag: `${registry}/${PAYLOAD_REPOSITORY}:${version}`,
    contextDir,
    containerfile: 'Containerfile',
    files,
    buildArgs,
    labels: { [CONTENT_HASH_LABEL]: contentHash },
    contentHash,
    needsBase: false,
  };
}

/**
 * Builds and pushes (only what the registry lacks) the OS images and payloads of the two releases, and returns
 * their pullspecs. OS images are returned by digest; payloads by tag (`<registry>/ocp/release:<version>`), the form
 * `oc adm upgrade --to-image` is given in the report.
 */
export async function ensureReleases(opts: EnsureReleasesOptions): Promise<EnsureReleasesResult> {
  const started = Date.now();
  const registry = typeof opts.registry === 'string' ? opts.registry : opts.registry.address;
  const client = new RegistryClient({ credentials: opts.credentials, caPems: opts.caPems });
  const log = opts.log ?? (() => undefined);
  const built: string[] = [];
  const base = busyboxBaseTag();
  let baseReady: Promise<unknown> | undefined;

  const ensure = async (recipe: ImageRecipe): Promise<string> => {
    const repo = recipe.tag.slice(0, recipe.tag.lastIndexOf(':'));
    const cached = opts.forceRebuild ? undefined : await cachedDigest(client, recipe.tag, recipe.contentHash);
    if (cached) return `${repo}@${cached}`;
    if (!opts.engine) {
      throw new ReleaseBuildError(`${recipe.tag} is not in the registry (or is stale) and no container engine was given to build it`);
    }
    const engine = opts.engine;
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
        noCache: opts.forceRebuild,
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

  const versions = [CURRENT_RELEASE, NEXT_RELEASE];
  const osPullspecs = await Promise.all(
    versions.map(async (version) => {
      const recipes = await osImageRecipes(registry, version, base.tag);
      const [rhelCoreos8, machineOsContent, extensions] = await Promise.all([
        ensure(recipes.rhelCoreos8),
        ensure(recipes.machineOsContent),
        ensure(recipes.extensions),
      ]);
      return { rhelCoreos8, machineOsContent, extensions };
    }),
  );
  const infos = await Promise.all(
    versions.map(async (version, i): Promise<ReleaseInfo> => {
      const os = osPullspecs[i]!;
      const payload = await payloadRecipe(registry, version, os);
      await ensure(payload);
      return { version, image: payload.tag, ...os, previous: releaseMetadata(version).previous };
    }),
  );
  return { current: infos[0]!, next: infos[1]!, built, durationMs: Date.now() - started };
}

/**
 * What the CVO learns from a payload image: version and OS image pullspecs, read from the registry
 * (image-references + release-metadata). Accepts the 4.13+ tag names too.
 */
export async function readReleaseInfo(client: RegistryClient, payloadRef: string): Promise<ReleaseInfo> {
  const payload = await readReleasePayload(client, payloadRef);
  const rhelCoreos8 = imageForTag(payload.images, 'rhel-coreos-8');
  const machineOsContent = payload.images['machine-os-content'];
  if (!rhelCoreos8 && !machineOsContent) {
    throw new ReleaseBuildError(`Release ${payloadRef} names neither rhel-coreos-8 nor machine-os-content in its image-references`);
  }
  return {
    version: payload.metadata.version,
    image: payloadRef,
    rhelCoreos8: rhelCoreos8 ?? machineOsContent!,
    machineOsContent: machineOsContent ?? rhelCoreos8!,
    extensions: imageForTag(payload.images, 'rhel-coreos-8-extensions'),
    previous: payload.metadata.previous ?? [],
  };
}
