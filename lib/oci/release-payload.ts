// The two metadata files of an OpenShift release payload image, as `oc adm release info` and the CVO read them:
// /release-manifests/image-references (an ImageStream naming every component image) and
// /release-manifests/release-metadata (Cincinnati metadata: version, previous versions).
import { ImageHelperError } from './errors.js';
import type { RegistryClient } from './image-files.js';

export const IMAGE_REFERENCES_PATH = '/release-manifests/image-references';
export const RELEASE_METADATA_PATH = '/release-manifests/release-metadata';

export interface ImageStreamTag {
  name: string;
  annotations?: Record<string, string>;
  from: { kind: 'DockerImage'; name: string };
}

export interface ImageReferences {
  kind: 'ImageStream';
  apiVersion: 'image.openshift.io/v1';
  metadata: { name: string; creationTimestamp?: string | null; annotations?: Record<string, string> };
  spec: { lookupPolicy?: { local: boolean }; tags: ImageStreamTag[] };
}

export interface ReleaseMetadata {
  kind: 'cincinnati-metadata-v0';
  version: string;
  previous?: string[];
  next?: string[];
  metadata?: Record<string, string>;
}

export class ReleasePayloadError extends ImageHelperError {}

/** Builds the image-references ImageStream for a release: tag name → pullspec. */
export function makeImageReferences(version: string, tags: Record<string, string>): ImageReferences {
  return {
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: {
      name: version,
      creationTimestamp: null,
      annotations: { 'release.openshift.io/from-image-stream': 'ocp/4.12-art-latest' },
    },
    spec: {
      lookupPolicy: { local: false },
      tags: Object.entries(tags)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, pullspec]) => ({ name, annotations: {}, from: { kind: 'DockerImage' as const, name: pullspec } })),
    },
  };
}

export function parseImageReferences(text: string, source: string): Record<string, string> {
  let doc: ImageReferences;
  try {
    doc = JSON.parse(text) as ImageReferences;
  } catch (err) {
    throw new ReleasePayloadError(`${source}: image-references is not JSON (${(err as Error).message})`);
  }
  if (doc?.kind !== 'ImageStream' || !Array.isArray(doc.spec?.tags)) {
    throw new ReleasePayloadError(`${source}: image-references is not an ImageStream with spec.tags`);
  }
  const out: Record<string, string> = {};
  for (const tag of doc.spec.tags) if (tag?.name && tag.from?.name) out[tag.name] = tag.from.name;
  return out;
}

export interface ReleasePayload {
  /** Tag name → pullspec from image-references. */
  images: Record<string, string>;
  metadata: ReleaseMetadata;
}

/** Reads image-references and release-metadata from a payload image in a registry. */
export async function readReleasePayload(client: RegistryClient, payloadRef: string): Promise<ReleasePayload> {
  const [refs, meta] = await client.readFiles(payloadRef, [IMAGE_REFERENCES_PATH, RELEASE_METADATA_PATH]);
  if (!refs) {
    throw new ReleasePayloadError(`${payloadRef} has no ${IMAGE_REFERENCES_PATH}: it is not an OpenShift release payload image`);
  }
  const images = parseImageReferences(refs.toString('utf8'), payloadRef);
  let metadata: ReleaseMetadata;
  if (meta) {
    try {
      metadata = JSON.parse(meta.toString('utf8')) as ReleaseMetadata;
    } catch (err) {
      throw new ReleasePayloadError(`${payloadRef}: release-metadata is not JSON (${(err as Error).message})`);
    }
  } else {
    // Payloads without release-metadata still name their version in the ImageStream.
    const doc = JSON.parse(refs.toString('utf8')) as ImageReferences;
    metadata = { kind: 'cincinnati-metadata-v0', version: doc.metadata?.name ?? '' };
  }
  if (!metadata.version) throw new ReleasePayloadError(`${payloadRef}: release-metadata has no version`);
  return { images, metadata };
}

/** The OS image tag names: 4.12 calls the base OS `rhel-coreos-8`, 4.13 and later `rhel-coreos`. */
export const BASE_OS_TAG_ALIASES: Record<string, string[]> = {
  'rhel-coreos': ['rhel-coreos', 'rhel-coreos-8'],
  'rhel-coreos-8': ['rhel-coreos-8', 'rhel-coreos'],
  'rhel-coreos-extensions': ['rhel-coreos-extensions', 'rhel-coreos-8-extensions'],
  'rhel-coreos-8-extensions': ['rhel-coreos-8-extensions', 'rhel-coreos-extensions'],
};

/** Looks a tag up in a payload's images, accepting the 4.12 and 4.13+ names of the OS images for each other. */
export function imageForTag(images: Record<string, string>, tag: string): string | undefined {
  return taggedImage(images, tag)?.pullspec;
}

/** Like imageForTag, with the name the payload gives the image (`rhel-coreos` in a 4.13 payload asked for `rhel-coreos-8`). */
export function taggedImage(images: Record<string, string>, tag: string): { pullspec: string; tag: string } | undefined {
  for (const name of BASE_OS_TAG_ALIASES[tag] ?? [tag]) if (images[name]) return { pullspec: images[name], tag: name };
  return undefined;
}
