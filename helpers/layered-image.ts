/**
 * Step 2 of the report: build a layered OS image (by default images/layered-os/Containerfile: a package of the release's
 * extensions image, a file and an enabled unit; or the user's --containerfile) on top of the release's base OS image,
 * push it to the run's image repository, and hand back the pullspec by digest (every node pulls on its own, so a
 * moving tag is never used) with what its Containerfile says every node must show (layered-checks.ts). The image
 * carries an expiry label as QE's images do. The engine, the repository and the credentials come from the caller (the
 * session): nothing here is global.
 */
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { buildImage, removeImage, stepHeading, type BuildResult } from '../lib/oci/build.js';
import type { RegistryCredentials } from '../lib/oci/credentials.js';
import type { Engine } from '../lib/oci/engine.js';
import { RegistryClient } from '../lib/oci/image-files.js';
import { parseImageRef } from '../lib/oci/image-ref.js';
import { ImageNotFoundError } from '../lib/oci/errors.js';
import { MirroredRegistryClient } from '../lib/oci/mirrored-pull.js';
import { imageForPlatform, pushImageIndex } from '../lib/oci/platform-images.js';
import { pushImage, type PushResult } from '../lib/oci/push.js';
import { checkLayeredContainerfile, DEFAULT_CONTAINERFILE, describeContainerfile, SUITE_BUILD_ARGS } from './containerfile.js';
import type { ExpectedFile } from './facts/node.js';
import { runImageTag, testImageLabels } from './images/naming.js';
import { CHECK_LABELS, declaredChecks, type DeclaredChecks } from './layered-checks.js';

/** What to build on top of the base image: a build context, its Containerfile and build arguments. */
export interface LayeredImageRecipe {
  /** The build context folder. */
  contextDir: string;
  /** The Containerfile's path inside the context. */
  containerfile: string;
  /** Build arguments besides the suite's (BASE_IMAGE, EXTENSIONS_IMAGE), e.g. a mirror's URL. */
  buildArgs: Record<string, string>;
}

/** A user's Containerfile (--containerfile): its folder is the build context. */
export function userRecipe(containerfile: string, buildArgs: Record<string, string>): LayeredImageRecipe {
  return { contextDir: dirname(containerfile), containerfile: basename(containerfile), buildArgs };
}

/** The suite's layered image: images/layered-os/Containerfile (usbguard from the release's extensions image). */
export const DEFAULT_LAYERED_OS: LayeredImageRecipe = userRecipe(DEFAULT_CONTAINERFILE, {});

/**
 * One of the suite's layered images made for a case, `images/layered-os/<folder>/Containerfile`, with its folder as the
 * build context. A case that checks what its own image holds builds it whatever --containerfile says.
 */
export function caseRecipe(folder: string): LayeredImageRecipe {
  return userRecipe(join(dirname(DEFAULT_CONTAINERFILE), folder, 'Containerfile'), {});
}

/** What the recipe's Containerfile declares, read before anything is built: the checks, and whether it takes the extensions image. */
export async function readRecipe(recipe: LayeredImageRecipe): Promise<{ checks: DeclaredChecks; wantsExtensions: boolean }> {
  const path = join(recipe.contextDir, recipe.containerfile);
  const description = describeContainerfile(await readFile(path, 'utf8'), path, recipe.buildArgs);
  checkLayeredContainerfile(description, recipe.buildArgs);
  return { checks: declaredChecks(description.labels, path), wantsExtensions: description.declaredArgs.has(SUITE_BUILD_ARGS.extensionsImage) };
}

/** What every node booting the image must show, as NodeExpectation fields (spread into checkPoolRunsImage's). */
export interface LayeredImageChecks {
  packages: string[];
  /** With the contents the image holds. */
  files: ExpectedFile[];
  units: Array<{ name: string; enabled: true }>;
  /** Each architecture's image where it was built per architecture: a node must boot its own (node-probes-expected.ts). */
  platforms?: Array<{ architecture: string; digest: string }>;
}

/** The image of one architecture: the whole layered image on a single-arch cluster, an entry of its index otherwise. */
export interface LayeredPlatformImage {
  architecture: string;
  /** `<repo>@sha256:…` of the single-architecture image. */
  pullspec: string;
  digest: string;
  /** The tag the engine pushed it as (`<tag>-<arch>` under an index). */
  tag: string;
}

export interface LayeredImage {
  /** `<repo>@sha256:…`: what the MachineConfigs use (an OCI image index where the nodes run several architectures). */
  pullspec: string;
  digest: string;
  /** `<repo>:<run-id>-<case-id>`: the tag it was pushed as. */
  tag: string;
  /**
   * What was built per architecture (when the nodes' architectures were given): one image, or the entries of the index
   * that `pullspec` names. A node of an architecture boots its own entry's digest.
   */
  platforms?: LayeredPlatformImage[];
  baseImage: string;
  /** The release's extensions image the build was given, when the Containerfile takes one. */
  extensionsImage?: string;
  /** What its Containerfile's ocp-e2e.io/check-* labels ask of every node. */
  checks: LayeredImageChecks;
  buildMs: number;
  pushMs: number;
}

export interface LayeredImageRequest {
  engine: Engine;
  /** Repository to push to (helpers/images/repository.ts). */
  repository: string;
  /** Pull the base image and push the result with these. */
  credentials: RegistryCredentials;
  runId: string;
  caseId: string;
  baseImage: string;
  /** Finds the release's extensions image; asked only for a Containerfile that declares ARG EXTENSIONS_IMAGE. */
  extensionsImage?: () => Promise<string>;
  /** What to build on the base image; default DEFAULT_LAYERED_OS. */
  recipe?: LayeredImageRecipe;
  /**
   * Reads the release's images where the nodes pull them (the run's mirror sets): the build is given the mirror's
   * pullspecs for BASE_IMAGE and EXTENSIONS_IMAGE, same digests. Default: a client of `credentials` without mirrors.
   */
  registry?: MirroredRegistryClient;
  /**
   * The architectures of the nodes that will boot it: built once each (docker/podman --platform linux/<arch>) FROM the
   * base for that architecture (the base index's entry, or the single-arch base itself); several are pushed as one OCI
   * image index. Default: one build for the engine's own platform, as the engine picks it.
   */
  architectures?: readonly string[];
  /** Build output lines (for the report); secrets never reach them, the engine gets credentials out of band. */
  onOutput?: (line: string) => void;
  /** Where the build and push are, for the console: each build step, then the push and its result. */
  onProgress?: (line: string) => void;
}

export async function buildLayeredOsImage(request: LayeredImageRequest): Promise<LayeredImage> {
  const tag = runImageTag(request.repository, request.runId, request.caseId);
  const recipe = request.recipe ?? DEFAULT_LAYERED_OS;
  const { checks, wantsExtensions } = await readRecipe(recipe);
  if (wantsExtensions && !request.extensionsImage) {
    throw new Error(`${recipe.containerfile} declares ARG ${SUITE_BUILD_ARGS.extensionsImage}, but no extensions image of the release was given to build it`);
  }
  const extensionsImage = wantsExtensions ? await request.extensionsImage!() : undefined;
  const registry = request.registry ?? new MirroredRegistryClient({ credentials: request.credentials });
  const base = await buildBase(registry, request.baseImage, recipe.buildArgs[SUITE_BUILD_ARGS.baseImage]);
  const extensions = extensionsImage ? await registry.pullFrom(extensionsImage) : undefined;
  const architectures = request.architectures?.length ? [...request.architectures] : [undefined];
  const built: Array<{ architecture?: string; tag: string; build: BuildResult; push: PushResult }> = [];
  for (const architecture of architectures) {
    // one architecture keeps the plain tag; under an index each image has its own, the index takes the plain one
    const archTag = architectures.length > 1 ? `${tag}-${architecture}` : tag;
    const suiteArgs: Record<string, string> = { [SUITE_BUILD_ARGS.baseImage]: architecture ? await baseForPlatform(registry, base, architecture, 'base OS image') : base };
    if (extensions) suiteArgs[SUITE_BUILD_ARGS.extensionsImage] = architecture ? await baseForPlatform(registry, extensions, architecture, 'extensions image') : extensions;
    const for_ = architecture ? ` for linux/${architecture}` : '';
    const build = await buildImage(request.engine, {
      contextDir: recipe.contextDir,
      containerfile: recipe.containerfile,
      buildArgs: { ...recipe.buildArgs, ...suiteArgs },
      labels: testImageLabels({ runId: request.runId, caseId: request.caseId }),
      tag: archTag,
      registryConfig: request.credentials,
      ...(architecture ? { platform: `linux/${architecture}` } : {}),
      onOutput: (line) => {
        request.onOutput?.(line);
        const heading = stepHeading(line);
        // one console line per step: a long RUN or ARG is cut, the whole text is in the build output attachment
        if (heading) request.onProgress?.(`build${for_} ${heading.length > 100 ? `${heading.slice(0, 99)}…` : heading}`);
      },
    });
    request.onProgress?.(`built ${archTag}${for_} in ${(build.durationMs / 1000).toFixed(1)}s; pushing it`);
    const push = await pushImage(request.engine, archTag, { auth: request.credentials });
    request.onProgress?.(`pushed ${push.pullspec} in ${(push.durationMs / 1000).toFixed(1)}s`);
    if (architecture) await expectBuiltFor(push.pullspec, architecture, request.credentials);
    built.push({ architecture, tag: archTag, build, push });
  }
  const client = new RegistryClient({ credentials: request.credentials });
  const platforms = built.flatMap((b) => (b.architecture ? [{ architecture: b.architecture, pullspec: b.push.pullspec, digest: b.push.digest, tag: b.tag }] : []));
  // nodes of several architectures: one pullspec for all of them, each node's pull picks its own entry
  const pullspec = platforms.length > 1 ? await pushImageIndex(client, tag, platforms) : built[0]!.push.pullspec;
  if (platforms.length > 1) request.onProgress?.(`pushed the image index ${pullspec} over ${platforms.map((p) => `${p.architecture} ${p.digest}`).join(', ')}`);
  // the declared files are the Containerfile's, the same in every architecture's image
  const files = await declaredFilesOf(client, built[0]!.push.pullspec, checks.files);
  return {
    pullspec,
    digest: pullspec.slice(pullspec.indexOf('@') + 1),
    tag,
    ...(platforms.length ? { platforms } : {}),
    baseImage: request.baseImage,
    ...(extensionsImage ? { extensionsImage } : {}),
    checks: imageChecks(checks, files, platforms),
    buildMs: built.reduce((sum, b) => sum + b.build.durationMs, 0),
    pushMs: built.reduce((sum, b) => sum + b.push.durationMs, 0),
  };
}

/** What every node booting the image must show: the Containerfile's checks, the files as the image holds them, each architecture's digest. */
function imageChecks(checks: DeclaredChecks, files: ExpectedFile[], platforms: readonly LayeredPlatformImage[]): LayeredImageChecks {
  return {
    packages: checks.packages,
    files,
    units: checks.units.map((name) => ({ name, enabled: true as const })),
    ...(platforms.length ? { platforms: platforms.map(({ architecture, digest }) => ({ architecture, digest })) } : {}),
  };
}

/**
 * The layered image an earlier process of the run pushed as `<repository>:<run-id>-<case-id>`, described as
 * buildLayeredOsImage described it then (the checks are the recipe's, the files read from the image); undefined when
 * the registry has no such tag. What lets the specs of one run share the suite's image: building it again could give
 * another digest under the same tag, and the pool would then hold two osImageURLs.
 */
export async function pushedLayeredOsImage(request: Pick<LayeredImageRequest, 'repository' | 'runId' | 'caseId' | 'credentials' | 'baseImage' | 'recipe' | 'architectures'>): Promise<LayeredImage | undefined> {
  const tag = runImageTag(request.repository, request.runId, request.caseId);
  const client = new RegistryClient({ credentials: request.credentials });
  let manifest: Awaited<ReturnType<RegistryClient['rawManifest']>>;
  try {
    manifest = await client.rawManifest(tag);
  } catch (error) {
    if (error instanceof ImageNotFoundError) return undefined;
    throw error;
  }
  const repository = tag.slice(0, tag.lastIndexOf(':'));
  const pullspec = `${repository}@${manifest.digest}`;
  const entries = manifest.body.manifests as Array<{ digest: string; platform?: { architecture?: string } }> | undefined;
  const single = request.architectures?.length === 1 ? request.architectures[0] : undefined;
  const platforms: LayeredPlatformImage[] = entries
    ? entries.map((e) => ({ architecture: e.platform?.architecture ?? '?', digest: e.digest, pullspec: `${repository}@${e.digest}`, tag: `${tag}-${e.platform?.architecture ?? '?'}` }))
    : single
      ? [{ architecture: single, digest: manifest.digest, pullspec, tag }]
      : [];
  const { checks } = await readRecipe(request.recipe ?? DEFAULT_LAYERED_OS);
  const files = await declaredFilesOf(client, platforms[0]?.pullspec ?? pullspec, checks.files);
  return {
    pullspec,
    digest: manifest.digest,
    tag,
    ...(platforms.length ? { platforms } : {}),
    baseImage: request.baseImage,
    checks: imageChecks(checks, files, platforms),
    buildMs: 0,
    pushMs: 0,
  };
}

/**
 * The pushed image's config names the architecture it was built for: an engine that ignored --platform (or a base
 * image that lies) would otherwise hand the nodes an image they refuse, found only after a rollout.
 */
async function expectBuiltFor(pullspec: string, architecture: string, credentials: RegistryCredentials): Promise<void> {
  const image = await imageForPlatform(new RegistryClient({ credentials }), pullspec, architecture);
  if (image.architecture !== architecture) {
    throw new Error(`the engine built ${pullspec} for ${image.architecture || 'no architecture'} (its config says so), although asked for linux/${architecture}: nodes of ${architecture} would refuse it`);
  }
}

/**
 * The image of `ref` for linux/`architecture`: an index's entry, or a single-arch image of that architecture. A
 * single-arch image of another architecture is refused here: a build FROM it would be an image the nodes refuse.
 */
async function baseForPlatform(registry: MirroredRegistryClient, ref: string, architecture: string, what: string): Promise<string> {
  const image = await imageForPlatform(registry, ref, architecture);
  if (image.architecture && image.architecture !== architecture) {
    throw new Error(`the ${what} ${ref} is a single-architecture image for ${image.architecture}, and nodes of architecture ${architecture} will boot the layered image: give a base of that architecture or an image index`);
  }
  return image.pullspec;
}

/**
 * What the build's FROM names: the user's `--build-arg BASE_IMAGE` (a mirror of the base, say) when its digest is the
 * release's base OS image's, else where a node pulls the base (a mirror's pullspec on a disconnected cluster).
 */
async function buildBase(registry: MirroredRegistryClient, baseImage: string, given: string | undefined): Promise<string> {
  if (given === undefined) return registry.pullFrom(baseImage);
  const digestOf = async (ref: string): Promise<string> => parseImageRef(ref).digest ?? registry.manifestDigest(ref);
  const [wanted, got] = await Promise.all([digestOf(baseImage), digestOf(given)]);
  if (wanted !== got) {
    throw new Error(`--build-arg ${SUITE_BUILD_ARGS.baseImage}=${given} is ${got}, not the release's base OS image ${baseImage} (${wanted}): give that image or a mirror of it, or leave the argument out`);
  }
  return given;
}

/**
 * The declared files as the pushed image holds them, read from the registry as a node pulls it. A file the image
 * lacks, or holds with another mode, stops the run here, before any pool rolls the image out.
 */
export async function declaredFilesOf(client: RegistryClient, pullspec: string, declared: DeclaredChecks['files']): Promise<ExpectedFile[]> {
  const out: ExpectedFile[] = [];
  for (const file of declared) {
    const found = await client.readFileEntry(pullspec, file.path);
    const label = `its Containerfile declares it (LABEL ${CHECK_LABELS.files})`;
    if (!found) throw new Error(`the layered image ${pullspec} has no file ${file.path}, yet ${label}`);
    if (file.mode !== undefined && found.mode !== file.mode) {
      throw new Error(`the layered image ${pullspec} holds ${file.path} with mode 0${found.mode.toString(8)}, yet ${label} with mode 0${file.mode.toString(8)}`);
    }
    out.push({ path: file.path, mode: found.mode, contents: found.data.toString('utf8') });
  }
  return out;
}

/**
 * Removes the engine's local copies of a layered image (its tag and its by-digest reference). The pushed image stays
 * in the registry, where its expiry label ages it out; the base image stays cached for the next build. Its parents,
 * the cached steps every layered build of the same Containerfile and base shares, stay too: pruning them with the
 * image pulled them from under another spec's build in progress (dockerd: "failed to get digest sha256:…: open
 * /var/lib/docker/image/overlay2/imagedb/content/sha256/…: no such file or directory", two specs at once), and the
 * next build reuses them.
 */
export async function removeLocalLayeredImage(engine: Engine, image: Pick<LayeredImage, 'tag' | 'pullspec'>): Promise<void> {
  for (const ref of [image.tag, image.pullspec]) await removeImage(engine, ref, { keepParents: true });
}
