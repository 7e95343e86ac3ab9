// Images for more than one CPU architecture, through the registry API alone: an image's copy that names another
// architecture in its config (the same layers), an OCI image index over per-architecture images (what `docker buildx
// --platform a,b --push` and release payloads of multi-arch OpenShift push), and the image of one architecture that a
// pullspec gives, following an index as a node's pull does.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { create as createTar } from 'tar';
import { ImageNotFoundError, RegistryRequestError } from './errors.js';
import { parseImageRef, repositoryName } from './image-ref.js';
import type { RegistryApi } from './registry-api.js';

export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const DOCKER_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';
const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
const INDEXES = new Set([OCI_INDEX, DOCKER_LIST]);

/** Architectures as OCI and Kubernetes name them (`kubernetes.io/arch`), and as rpm and `uname -m` do. */
export const UNAME_ARCH: Record<string, string> = { amd64: 'x86_64', arm64: 'aarch64', ppc64le: 'ppc64le', s390x: 's390x' };

/** The variant containers/image wants by default for an architecture (`v8` on arm64), as its errors name it. */
function defaultVariant(architecture: string): string {
  return architecture === 'arm64' ? 'v8' : '';
}

/** An index holds no image for the architecture: containers/image's words (internal/manifest oci_index.go ChooseInstance). */
export class NoMatchingPlatformError extends ImageNotFoundError {
  constructor(readonly architecture: string, readonly available: string[]) {
    super(`no image found in image index for architecture "${architecture}", variant "${defaultVariant(architecture)}", OS "linux"`, 404);
    this.name = 'NoMatchingPlatformError';
  }
}

export interface PlatformImage {
  /** `<repo>@sha256:…` of the single-architecture image manifest. */
  pullspec: string;
  digest: string;
  /** The architecture its config says (what ostree-rs-ext compares with the host's). */
  architecture: string;
  /** Whether the pullspec asked for was an index the image was picked from. */
  fromIndex: boolean;
}

/**
 * The single-architecture image a pull of `ref` on a linux/`architecture` machine gets: an index followed to its
 * entry for that platform (NoMatchingPlatformError without one), a plain image taken as it is, whatever its config's
 * architecture (a pull does not check it; ostree-rs-ext does, later).
 */
export async function imageForPlatform(client: RegistryApi, ref: string, architecture: string): Promise<PlatformImage> {
  const repo = repositoryName(parseImageRef(ref));
  let top = await client.rawManifest(ref);
  let fromIndex = false;
  if (INDEXES.has(top.mediaType)) {
    const entries = (top.body.manifests as Array<{ digest: string; platform?: { os?: string; architecture?: string } }> | undefined) ?? [];
    const pick = entries.find((e) => (e.platform?.os ?? 'linux') === 'linux' && e.platform?.architecture === architecture);
    if (!pick) throw new NoMatchingPlatformError(architecture, entries.map((e) => e.platform?.architecture ?? '?'));
    top = await client.rawManifest(`${repo}@${pick.digest}`);
    fromIndex = true;
  }
  const config = top.body.config as { digest?: string } | undefined;
  if (!config?.digest) throw new RegistryRequestError(`${ref}: unsupported manifest type ${top.mediaType || '(none)'}`, undefined);
  const pullspec = `${repo}@${top.digest}`;
  const configJson = JSON.parse((await client.blob(pullspec, config.digest)).toString('utf8')) as { architecture?: string };
  return { pullspec, digest: top.digest, architecture: configJson.architecture ?? '', fromIndex };
}

/**
 * A copy of the single-architecture image `source` whose config names `architecture` (the layers are the same blobs),
 * pushed as `tag` in the same repository; returns it by digest. What it holds is the source's content unchanged: only
 * what an image says it runs on differs.
 */
export async function pushArchitectureVariant(client: RegistryApi, source: string, tag: string, architecture: string): Promise<PlatformImage> {
  const repo = repositoryName(parseImageRef(source));
  if (repositoryName(parseImageRef(tag)) !== repo) throw new Error(`the variant ${tag} must be in the repository of ${source}`);
  const image = await client.rawManifest(source);
  if (INDEXES.has(image.mediaType)) throw new Error(`${source} is an image index; give one of its images`);
  const configDescriptor = image.body.config as { digest: string; size?: number; mediaType?: string };
  const config = JSON.parse((await client.blob(source, configDescriptor.digest)).toString('utf8')) as Record<string, unknown>;
  const newConfig = Buffer.from(JSON.stringify({ ...config, architecture, os: 'linux' }));
  const configDigest = await client.pushBlob(repo, newConfig);
  const manifest = Buffer.from(JSON.stringify({ ...image.body, config: { ...configDescriptor, digest: configDigest, size: newConfig.length } }));
  const digest = await client.pushManifest(tag, image.mediaType, manifest);
  return { pullspec: `${repo}@${digest}`, digest, architecture, fromIndex: false };
}

/** An OCI image index over single-architecture images of one repository, pushed as `tag`; returns it by digest. */
export async function pushImageIndex(client: RegistryApi, tag: string, images: Array<{ pullspec: string; architecture: string }>): Promise<string> {
  const repo = repositoryName(parseImageRef(tag));
  const manifests = [];
  for (const image of images) {
    if (repositoryName(parseImageRef(image.pullspec)) !== repo) throw new Error(`${image.pullspec} is not in ${repo}: an index names images of its own repository`);
    const m = await client.rawManifest(image.pullspec);
    manifests.push({ mediaType: m.mediaType, digest: m.digest, size: m.size, platform: { architecture: image.architecture, os: 'linux', ...(defaultVariant(image.architecture) ? { variant: defaultVariant(image.architecture) } : {}) } });
  }
  // Docker schema 2 entries go in a Docker manifest list, as buildx and the release tooling push them (multi payloads on
  // quay.io are manifest lists); oc 4.12 asks for no OCI index ("OCI index found, but accept header does not support
  // OCI indexes"). OCI entries go in an OCI index.
  const listType = manifests.every((m) => m.mediaType === DOCKER_MANIFEST) ? DOCKER_LIST : OCI_INDEX;
  const digest = await client.pushManifest(tag, listType, Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: listType, manifests })));
  return `${repo}@${digest}`;
}

/**
 * A copy of the single-architecture image `source` with one more layer holding `files` (path in the image → content),
 * which shadow the source's files of the same paths, and whose config names `architecture`; pushed as `tag` in the
 * same repository. What a release payload of another architecture, or one naming other images, needs without an engine.
 */
export async function pushWithFiles(client: RegistryApi, source: string, tag: string, architecture: string, files: Record<string, string>): Promise<PlatformImage> {
  const repo = repositoryName(parseImageRef(source));
  const image = await client.rawManifest(source);
  if (INDEXES.has(image.mediaType)) throw new Error(`${source} is an image index; give one of its images`);
  const layer = await filesLayer(files);
  const layerDigest = await client.pushBlob(repo, layer.gzipped);
  const configDescriptor = image.body.config as { digest: string; size?: number; mediaType?: string };
  const config = JSON.parse((await client.blob(source, configDescriptor.digest)).toString('utf8')) as { rootfs?: { type: string; diff_ids: string[] } } & Record<string, unknown>;
  const rootfs = { type: 'layers', diff_ids: [...(config.rootfs?.diff_ids ?? []), layer.diffId] };
  const newConfig = Buffer.from(JSON.stringify({ ...config, architecture, os: 'linux', rootfs }));
  const configDigest = await client.pushBlob(repo, newConfig);
  const layers = [...((image.body.layers as unknown[] | undefined) ?? []), { mediaType: layerMediaType(image.mediaType), digest: layerDigest, size: layer.gzipped.length }];
  const manifest = Buffer.from(JSON.stringify({ ...image.body, config: { ...configDescriptor, digest: configDigest, size: newConfig.length }, layers }));
  const digest = await client.pushManifest(tag, image.mediaType, manifest);
  return { pullspec: `${repo}@${digest}`, digest, architecture, fromIndex: false };
}

/** The gzipped layer media type that goes with a manifest's own (Docker's or OCI's). */
function layerMediaType(manifestMediaType: string): string {
  return manifestMediaType.startsWith('application/vnd.docker.') ? 'application/vnd.docker.image.rootfs.diff.tar.gzip' : 'application/vnd.oci.image.layer.v1.tar+gzip';
}

/** A layer of `files` (mode 0644, fixed times: the same files give the same digest), with its diff id. */
async function filesLayer(files: Record<string, string>): Promise<{ gzipped: Buffer; diffId: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-layer-'));
  try {
    for (const [name, content] of Object.entries(files)) {
      const target = path.join(dir, name.replace(/^\/+/, ''));
      if (!target.startsWith(dir + path.sep)) throw new Error(`layer file ${name} escapes the layer`);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, content, { mode: 0o644 });
    }
    const chunks: Buffer[] = [];
    const stream = createTar({ cwd: dir, portable: true, mtime: new Date(0) }, await readdir(dir));
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
    const tar = Buffer.concat(chunks as unknown as Uint8Array[]);
    return { gzipped: gzipSync(tar as unknown as Uint8Array), diffId: 'sha256:' + createHash('sha256').update(tar as unknown as Uint8Array).digest('hex') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
