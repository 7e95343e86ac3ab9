/**
 * How the reference learns about images: by asking the registry, as the real CVO (payload) and the real daemon
 * (`rpm-ostree rebase`) do. Only loopback registries are contacted; any other host fails the way a disconnected
 * cluster fails, with the error text of a real pull, unless the cluster's mirror sets send the pull to a mirror.
 */
import { ImageNotFoundError, RegistryUnauthorizedError } from '../lib/oci/errors.js';
import { isLoopbackRegistry, parseImageRef } from '../lib/oci/image-ref.js';
import type { RegistryClient } from '../lib/oci/image-files.js';
import { MirroredPullError, pullSource, type FailedCandidate } from '../lib/oci/mirrored-pull.js';
import { MirrorSets } from '../lib/oci/mirrors.js';
import { LOOPBACK_ONLY_ENV } from '../lib/oci/reachability.js';
import { imageForPlatform, NoMatchingPlatformError } from '../lib/oci/platform-images.js';
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
  if (error instanceof NoMatchingPlatformError) return `Creating importer: failed to invoke method OpenImage: choosing image instance: ${error.message}`;
  if (error instanceof ImageNotFoundError) {
    return `Creating importer: failed to invoke method OpenImage: reading manifest ${parsed.digest ?? parsed.tag ?? 'latest'} in ${where}: manifest unknown: manifest unknown`;
  }
  if (error instanceof RegistryUnauthorizedError) {
    return `Creating importer: failed to invoke method OpenImage: reading manifest ${parsed.digest ?? parsed.tag ?? 'latest'} in ${where}: unauthorized: authentication required`;
  }
  return `Creating importer: failed to invoke method OpenImage: ${(error as Error).message}`;
}

/** What a node says when no way to an image is left: containers/image's words for the source and each mirror. */
function explainMirrored(error: MirroredPullError): string {
  const one = (ref: string, e: Error): string => explain(ref, e).replace(/^Creating importer: failed to invoke method OpenImage: /, '');
  const unreachable = (ref: string): string => {
    const registry = parseImageRef(ref).registry;
    return `pinging container registry ${registry}: Get "https://${registry}/v2/": dial tcp: lookup ${registry.replace(/:\d+$/, '')}: no such host`;
  };
  const said = (t: FailedCandidate): string => (isLoopbackRegistry(parseImageRef(t.ref).registry) ? one(t.ref, t.error) : unreachable(t.ref));
  const mirrors = error.tried.filter((t) => t.mirror).map((t) => `${t.ref}: ${said(t)}`);
  const source = error.tried.find((t) => !t.mirror);
  const tail = source ? `${error.ref}: ${said(source)}` : `${error.ref}: registry ${parseImageRef(error.ref).registry} is blocked in /etc/containers/registries.conf`;
  return `Creating importer: failed to invoke method OpenImage: ${mirrors.length ? `(Mirrors also failed: [${mirrors.join(', ')}]): ` : ''}${tail}`;
}

/** Nodes of the reference reach loopback registries only: every other host is the internet a disconnected cluster lacks. */
const NODE_REACH = { [LOOPBACK_ONLY_ENV]: '1' };

/**
 * Where a node reads `ref` from: itself on loopback, a mirror's copy when the cluster's mirror sets map it; anything
 * else is refused as a disconnected node's pull fails (ImagePullError with containers/image's text).
 */
export function imageSources(clientNow: () => Promise<RegistryClient>, mirrors: () => Promise<MirrorSets>): (ref: string) => Promise<string> {
  return async (ref: string): Promise<string> => {
    let registry: string;
    try {
      registry = parseImageRef(ref).registry;
    } catch (error) {
      throw new ImagePullError(explain(ref, error));
    }
    const sets = await mirrors();
    if (!sets.rulesFor(ref).length && !sets.blocks(ref)) {
      if (isLoopbackRegistry(registry)) return ref;
      // the reference cluster is disconnected: the one way to an image is the local registry
      throw new ImagePullError(
        `Creating importer: failed to invoke method OpenImage: pinging container registry ${registry}: Get "https://${registry}/v2/": dial tcp: lookup ${registry.replace(/:\d+$/, '')}: no such host`,
      );
    }
    const client = await clientNow();
    try {
      return await pullSource(ref, sets, async (candidate) => void (await client.manifestDigest(candidate)), NODE_REACH);
    } catch (error) {
      if (error instanceof MirroredPullError) throw new ImagePullError(explainMirrored(error), { cause: error });
      throw error;
    }
  };
}

/**
 * `clients` gives the registry client to pull with, each time: the pull secret may have changed meanwhile. `mirrors`
 * gives the cluster's mirror sets at each pull, which the pull follows as registries.conf sends it (lib/oci/mirrors.ts).
 */
export function registryImageReader(clients: RegistryClient | (() => Promise<RegistryClient>), mirrors: () => Promise<MirrorSets> = async () => MirrorSets.none): ImageReader {
  const clientNow = typeof clients === 'function' ? clients : async () => clients;
  const source = imageSources(clientNow, mirrors);
  return {
    async readRelease(payloadRef: string): Promise<ReleaseInfo> {
      const from = await source(payloadRef);
      try {
        // the release keeps the name it was asked by, whichever mirror served it
        return { ...(await readReleaseInfo(await clientNow(), from)), image: payloadRef };
      } catch (error) {
        if (error instanceof ImageNotFoundError) throw new ImagePullError(`unable to read release image ${payloadRef}: manifest unknown: manifest unknown`, { cause: error });
        throw new ImagePullError(`unable to read release image ${payloadRef}: ${(error as Error).message}`, { cause: error });
      }
    },
    async resolveOsImage(ref: string): Promise<void> {
      const from = await source(ref);
      try {
        await (await clientNow()).manifestDigest(from);
      } catch (error) {
        throw new ImagePullError(explain(ref, error), { cause: error });
      }
    },
    async readImageLabels(ref: string): Promise<Record<string, string>> {
      const from = await source(ref);
      try {
        const config = await (await clientNow()).imageConfig(from);
        return ((config.config as { Labels?: Record<string, string> } | undefined)?.Labels) ?? {};
      } catch (error) {
        throw new ImagePullError(explain(ref, error), { cause: error });
      }
    },
    async imageArchitecture(ref: string, architecture: string): Promise<string> {
      const from = await source(ref);
      try {
        return (await imageForPlatform(await clientNow(), from, architecture)).architecture;
      } catch (error) {
        throw new ImagePullError(explain(ref, error), { cause: error });
      }
    },
    async readOsImage(ref: string): Promise<OsImageContent> {
      const from = await source(ref);
      try {
        const content = await readOsImageContent(await clientNow(), from);
        return { digest: content.digest, osRelease: content.osRelease, packages: content.packages };
      } catch (error) {
        throw new ImagePullError(explain(ref, error), { cause: error });
      }
    },
  };
}
