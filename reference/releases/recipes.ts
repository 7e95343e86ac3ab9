// What each image of a release is built from: the RHCOS-like OS images from images/rhcos-like, the payload from
// images/release-payload with its image-references and release-metadata. Each recipe carries the hash of all its
// inputs, which the build stores as a label: the cache key of ensure.ts.
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { IMAGE_REFERENCES_PATH, makeImageReferences, RELEASE_METADATA_PATH, type ReleaseMetadata } from '../../lib/oci/release-payload.js';
import { BOOTABLE_LABEL, OSTREE_COMMIT_LABEL } from '../mcd/image-type.js';
import type { OsImageTags, ReleaseDefinition, RhelStream } from './release-set.js';

export const OS_REPOSITORY = 'openshift-release-dev/ocp-v4.0-art-dev';
export const PAYLOAD_REPOSITORY = 'ocp/release';
export const CONTENT_HASH_LABEL = 'ocp-e2e.io/content-hash';
/** Bump to force a rebuild of every release image when the recipes below change. */
const RECIPE_VERSION = '1';

const IMAGES_DIR = fileURLToPath(new URL('../../images/', import.meta.url));

export interface ImageRecipe {
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

/**
 * One recipe per OS image the release's payload names, keyed by its tag name. The base OS and machine-os-content are
 * the same RHCOS-like tree told which image it is (its os-release VARIANT_ID); the extensions image is a package
 * repository on the same base.
 */
export async function osImageRecipes(registry: string, version: string, tags: OsImageTags, baseTag: string, rhel: RhelStream = '8.6'): Promise<Record<string, ImageRecipe>> {
  const contextDir = path.join(IMAGES_DIR, 'rhcos-like');
  const treeHash = await hashTree(contextDir);
  const make = (tagName: string, containerfile: string, extraArgs: Record<string, string>, osLabels: Record<string, string> = {}, stream: RhelStream = rhel): ImageRecipe => {
    // RHEL 8.6 is the Containerfiles' default: left out, the 4.12 images keep the content hash (and cache) they had
    const buildArgs = { BASE_IMAGE: baseTag, RELEASE_VERSION: version, ...(stream === '8.6' ? {} : { RHEL_VERSION: stream }), ...extraArgs };
    const contentHash = hashOf({ RECIPE_VERSION, treeHash, containerfile, buildArgs, osLabels });
    return {
      tag: `${registry}/${OS_REPOSITORY}:${version}-${tagName}`,
      contextDir,
      containerfile,
      buildArgs,
      labels: { [CONTENT_HASH_LABEL]: contentHash, 'io.openshift.release': version, ...osLabels },
      contentHash,
      needsBase: true,
    };
  };
  // The labels the daemon tells the formats apart by (mcd/image-type.ts): the new format is `ostree.bootable`, and both
  // name their ostree commit as RHCOS's do; the extensions image, a package repository, is neither.
  const commit = (kind: string): string => hashOf({ version, kind });
  const recipes: Record<string, ImageRecipe> = {
    [tags.base]: make(tags.base, 'Containerfile', { IMAGE_KIND: tags.base }, { [BOOTABLE_LABEL]: 'true', [OSTREE_COMMIT_LABEL]: commit(tags.base) }),
  };
  if (tags.machineOsContent) recipes[tags.machineOsContent] = make(tags.machineOsContent, 'Containerfile', { IMAGE_KIND: tags.machineOsContent }, { [OSTREE_COMMIT_LABEL]: commit(tags.machineOsContent) });
  if (tags.extensions) recipes[tags.extensions] = make(tags.extensions, 'Containerfile.extensions', {});
  const second = tags.secondStream;
  if (second) {
    recipes[second.base] = make(second.base, 'Containerfile', { IMAGE_KIND: second.base }, { [BOOTABLE_LABEL]: 'true', [OSTREE_COMMIT_LABEL]: commit(second.base) }, second.rhel);
    if (second.extensions) recipes[second.extensions] = make(second.extensions, 'Containerfile.extensions', {}, {}, second.rhel);
  }
  return recipes;
}

/** release-metadata of a release: its version, the versions it updates from, and its page on the release stream. */
export function releaseMetadata(version: string, previous: string[]): ReleaseMetadata {
  // the stream of a nightly is its version without the date stamp: 4.12.0-0.nightly
  const stream = version.replace(/-\d{4}-\d{2}-\d{2}-\d{6}$/, '');
  return {
    kind: 'cincinnati-metadata-v0',
    version,
    previous,
    metadata: { url: `https://amd64.ocp.releases.ci.openshift.org/releasestream/${stream}/release/${version}` },
  };
}

/**
 * The payload `<registry>/ocp/release:<version>` (or the `tag` given: a disconnected payload's): image-references
 * naming the OS images (by digest) and release-metadata.
 */
export async function payloadRecipe(registry: string, release: ReleaseDefinition, osImages: Record<string, string>, previous: string[], tag = `${registry}/${PAYLOAD_REPOSITORY}:${release.version}`): Promise<ImageRecipe> {
  const { version } = release;
  const contextDir = path.join(IMAGES_DIR, 'release-payload');
  const imageReferences = JSON.stringify(makeImageReferences(version, osImages), null, 2);
  const metadata = JSON.stringify(releaseMetadata(version, previous), null, 2);
  const files = {
    [IMAGE_REFERENCES_PATH.replace(/^\//, '')]: imageReferences + '\n',
    [RELEASE_METADATA_PATH.replace(/^\//, '')]: metadata + '\n',
  };
  const buildArgs = { RELEASE_VERSION: version };
  const contentHash = hashOf({ RECIPE_VERSION, tree: await hashTree(contextDir), files, buildArgs });
  return {
    tag,
    contextDir,
    containerfile: 'Containerfile',
    files,
    buildArgs,
    labels: { [CONTENT_HASH_LABEL]: contentHash },
    contentHash,
    needsBase: false,
  };
}
