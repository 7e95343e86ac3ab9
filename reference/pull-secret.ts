/**
 * The cluster's pull secret, `openshift-config/pull-secret` (type kubernetes.io/dockerconfigjson), as a real
 * cluster has it: the CVO reads release payloads and the daemons pull OS images with the credentials it holds. Every
 * pull reads it through the API (coalesced for a moment, so a thousand daemons pulling at once make one read), so a
 * pull secret changed or removed by someone takes effect on the next pull, as on a real cluster.
 */
import { createHash } from 'node:crypto';
import { parseDockerConfig, RegistryCredentials } from '../lib/oci/credentials.js';
import { RegistryClient } from '../lib/oci/image-files.js';
import type { KubeClient, KubeObject } from '../lib/kube/client.js';
import type { ImageLayerSource } from './node-fs/image-trees.js';
import { REFERENCE_TRUST_ENV } from './registry.js';

export const PULL_SECRET = { namespace: 'openshift-config', name: 'pull-secret' } as const;
const REUSE_MS = 1000;

/** Creates (or replaces) the pull secret with the given docker config text. Its namespace must exist. */
export async function writePullSecret(client: KubeClient, dockerConfigJson: string): Promise<void> {
  await client.apply('Secret', {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: PULL_SECRET.name, namespace: PULL_SECRET.namespace },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(dockerConfigJson).toString('base64') },
  });
}

/**
 * Registry clients that use the pull secret's credentials as it is now. One client per distinct secret content,
 * so the layer cache survives while the secret does not change.
 */
export class PullSecretRegistryClients {
  private readonly clients = new Map<string, RegistryClient>();
  private pending: { at: number; client: Promise<RegistryClient> } | undefined;
  private lastRead = '';

  constructor(
    private readonly kube: KubeClient,
    private readonly caPems: string[],
  ) {}

  /** A client with the current pull secret's credentials (none when the secret is missing or unreadable). */
  current(): Promise<RegistryClient> {
    if (this.pending && Date.now() - this.pending.at < REUSE_MS) return this.pending.client;
    const client = this.read().then((text) => this.clientFor(text));
    this.pending = { at: Date.now(), client };
    return client;
  }

  private async read(): Promise<string> {
    try {
      const secret = await this.kube.get<KubeObject & { data?: Record<string, string> }>('Secret', PULL_SECRET.name, PULL_SECRET.namespace);
      // No pull secret: pulls go out without credentials and the registry refuses them, as it would.
      const data = secret?.data?.['.dockerconfigjson'];
      this.lastRead = data ? Buffer.from(data, 'base64').toString('utf8') : '';
    } catch {
      // An API fault or restart keeps what was read last, as a node keeps its copy on disk.
    }
    return this.lastRead;
  }

  /**
   * The layers of a node's images, unpacked into the node's tree (node-fs/): the node's disk holds them, so no
   * credentials are asked on the node, but the reference reads them from the registry: with `own` (the reference
   * registry's, which the nodes booted from) completed by the pull secret as it was last read (what the node pulled
   * any other image with).
   */
  hostLayers(own: RegistryCredentials): ImageLayerSource {
    const reader = this.hostReader(own);
    return {
      digest: async (ref) => (await reader()).manifestDigest(ref),
      layerDigests: async (ref) => (await (await reader()).imageManifest(ref)).manifest.layers.map((l) => l.digest),
      layer: async (ref, digest) => (await reader()).blob(ref, digest),
    };
  }

  private hostReader(own: RegistryCredentials): () => Promise<RegistryClient> {
    return async () => {
      const text = await this.read();
      const key = `host-files:${createHash('sha256').update(text).digest('hex')}`;
      let client = this.clients.get(key);
      if (!client) {
        client = new RegistryClient({ credentials: own.withFallback(this.credentialsOf(text)), caPems: this.caPems, env: REFERENCE_TRUST_ENV });
        this.clients.set(key, client);
      }
      return client;
    };
  }

  private credentialsOf(text: string): RegistryCredentials {
    try {
      return text ? parseDockerConfig(text, `secret ${PULL_SECRET.namespace}/${PULL_SECRET.name}`) : new RegistryCredentials();
    } catch {
      return new RegistryCredentials(); // an unparsable pull secret authenticates nothing
    }
  }

  private clientFor(text: string): RegistryClient {
    const key = createHash('sha256').update(text).digest('hex');
    let client = this.clients.get(key);
    if (!client) {
      client = new RegistryClient({ credentials: this.credentialsOf(text), caPems: this.caPems, env: REFERENCE_TRUST_ENV });
      this.clients.set(key, client);
    }
    return client;
  }
}
