/**
 * How the reference learns about images: by asking the registry, as the real CVO (payload) and the real daemon
 * (`rpm-ostree rebase`) do. Only loopback registries are contacted; any other host fails the way a disconnected
 * cluster fails, with the error text of a real pull.
 */
import { ImageNotFoundError, RegistryUnauthorizedError } from '../lib/oci/errors.js';
import { isLoopbackRegistry, parseImageRef } from '../lib/oci/image-ref.js';
import type { RegistryClient } from '../lib/oci/image-files.js';
import { readOsImageContent } from './releases/os-content.js';
import { readReleaseInfo } from './releases/read.js';
import type { ReleaseInfo } from './releases/release-info.js';
import type { ImageReader, OsImageContent } from './context.js';

export class ImagePullError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ImagePullError';
  }
}

/** The text a real pull gives for `ref` when the registry cannot be reached or does not have it. */
function explain(ref: string, error: unknown): string {
  let parsed;
  try {
    parsed = parseImageRef(ref);
  } catch (e) {
    return `invalid image reference ${JSON.stringify(ref)}: ${(e as Error).message}`;
  }
  const where = `${parsed.registry}/${parsed.repository}`;
  if (error instanceof ImageNotFoundError) {
    return `Creating importer: failed to invoke method OpenImage: reading manifest ${parsed.digest ?? parsed.tag ?? 'latest'} in ${where}: manifest unknown: manifest unknown`;
  }
  if (error instanceof RegistryUnauthorizedError) {
    return `Creating importer: failed to invoke method OpenImage: reading manifest ${parsed.digest ?? parsed.tag ?? 'latest'} in ${where}: unauthorized: authentication required`;
  }
  return `Creating importer: failed to invoke method OpenImage: ${(error as Error).message}`;
}

/** `clients` gives the registry client to pull with, each time: the pull secret may have changed meanwhile. */
export function registryImageReader(clients: RegistryClient | (() => Promise<RegistryClient>)): ImageReader {
  const clientNow = typeof clients === 'function' ? clients : async () => clients;
  const guard = (ref: string): void => {
    let registry: string;
    try {
      registry = parseImageRef(ref).registry;
    } catch (error) {
      throw new ImagePullError(explain(ref, error));
    }
    if (!isLoopbackRegistry(registry)) {
      // the reference cluster is disconnected: the one way to an image is the local registry
      throw new ImagePullError(
        `Creating importer: failed to invoke method OpenImage: pinging container registry ${registry}: Get "https://${registry}/v2/": dial tcp: lookup ${registry.replace(/:\d+$/, '')}: no such host`,
      );
    }
  };
  return {
    async readRelease(payloadRef: string): Promise<ReleaseInfo> {
      guard(payloadRef);
      try {
        return await readReleaseInfo(await clientNow(), payloadRef);
      } catch (error) {
        if (error instanceof ImageNotFoundError) throw new ImagePullError(`unable to read release image ${payloadRef}: manifest unknown: manifest unknown`, { cause: error });
        throw new ImagePullError(`unable to read release image ${payloadRef}: ${(error as Error).message}`, { cause: error });
      }
    },
    async resolveOsImage(ref: string): Promise<void> {
      guard(ref);
      try {
        await (await clientNow()).manifestDigest(ref);
      } catch (error) {
        throw new ImagePullError(explain(ref, error), { cause: error });
      }
    },
    async readImageLabels(ref: string): Promise<Record<string, string>> {
      guard(ref);
      try {
        const config = await (await clientNow()).imageConfig(ref);
        return ((config.config as { Labels?: Record<string, string> } | undefined)?.Labels) ?? {};
      } catch (error) {
        throw new ImagePullError(explain(ref, error), { cause: error });
      }
    },
    async readOsImage(ref: string): Promise<OsImageContent> {
      guard(ref);
      try {
        const content = await readOsImageContent(await clientNow(), ref);
        return { digest: content.digest, osRelease: content.osRelease, packages: content.packages };
      } catch (error) {
        throw new ImagePullError(explain(ref, error), { cause: error });
      }
    },
  };
}
