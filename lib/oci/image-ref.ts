// Image references (`registry/repo:tag`, `registry/repo@sha256:…`) split into their parts, Docker's rules.
import { ImageHelperError } from './errors.js';

export interface ImageRef {
  /** `quay.io`, `127.0.0.1:5000`, `docker.io` */
  registry: string;
  /** `openshift-release-dev/ocp-v4.0-art-dev` */
  repository: string;
  tag?: string;
  digest?: string;
}

export class InvalidImageRefError extends ImageHelperError {}

const DIGEST = /^sha256:[a-f0-9]{64}$/;

export function parseImageRef(ref: string): ImageRef {
  let rest = ref.trim();
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw new InvalidImageRefError(`Invalid digest in image reference "${ref}": expected sha256:<64 hex>`);
  }
  let tag: string | undefined;
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const parts = rest.split('/');
  let registry = 'docker.io';
  if (parts.length > 1 && (parts[0]!.includes('.') || parts[0]!.includes(':') || parts[0] === 'localhost')) {
    registry = parts.shift()!;
  }
  if (registry === 'docker.io' && parts.length === 1) parts.unshift('library');
  const repository = parts.join('/');
  if (!repository || !/^[a-z0-9]+(?:[._\/-][a-z0-9]+)*$/.test(repository.replace(/__/g, '_'))) {
    throw new InvalidImageRefError(`Invalid image reference "${ref}": repository "${repository}" must be lower-case letters, digits and . _ - /`);
  }
  if (tag !== undefined && !/^[\w][\w.-]{0,127}$/.test(tag)) {
    throw new InvalidImageRefError(`Invalid tag in image reference "${ref}": at most 128 of letters, digits, _ . -, not starting with . or -`);
  }
  return { registry, repository, tag, digest };
}

/** `registry/repository` */
export function repositoryName(ref: ImageRef): string {
  return `${ref.registry}/${ref.repository}`;
}

export function formatImageRef(ref: ImageRef): string {
  return repositoryName(ref) + (ref.tag ? `:${ref.tag}` : '') + (ref.digest ? `@${ref.digest}` : '');
}

/** A registry on this machine: the only kind that may answer in plain HTTP (and the only kind the reference reaches). */
export function isLoopbackRegistry(registry: string): boolean {
  const host = registry.replace(/:\d+$/, '');
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host.startsWith('127.');
}
