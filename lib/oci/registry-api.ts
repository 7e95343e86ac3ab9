// The registry HTTP API v2 (distribution spec) as a transport: requests to /v2/<repository>/..., answering Bearer-token
// and Basic challenges with credentials from a pull secret or docker config, manifests (following an index to one
// platform) and blobs, both verified against their digests. Speaks https, verifying certificates against the system
// roots or SSL_CERT_FILE plus any CA given (see tls.ts); a loopback registry that answers in plain HTTP is spoken to
// in plain HTTP, as dockerd does. What is inside an image's layers is image-files.ts's business.
import { createHash } from 'node:crypto';
import { RegistryCredentials } from './credentials.js';
import {
  ImageNotFoundError,
  RegistryRequestError,
  RegistryUnauthorizedError,
  RegistryUnreachableError,
} from './errors.js';
import { fetchFailureCode, fetchTrusting, isCertificateProblem, isPlainHttpAnswer, type Fetch } from './tls.js';
import { isLoopbackRegistry, parseImageRef, type ImageRef } from './image-ref.js';

export const MANIFEST_MEDIA_TYPES = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
];
const INDEX_MEDIA_TYPES = new Set([
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
]);

export interface Descriptor {
  mediaType?: string;
  digest: string;
  size?: number;
  platform?: { os?: string; architecture?: string };
}
export interface ImageManifest {
  mediaType?: string;
  config: Descriptor;
  layers: Descriptor[];
}

export interface RegistryApiOptions {
  credentials?: RegistryCredentials;
  /** Per-request timeout. */
  timeoutMs?: number;
  /** Platform to pick from a multi-arch index. */
  platform?: { os: string; architecture: string };
  /** Upper bound of layer bytes kept in memory between calls. */
  blobCacheBytes?: number;
  /** CAs (PEM) trusted besides the system roots or SSL_CERT_FILE, e.g. the reference cluster's. */
  caPems?: string[];
  /** Environment to read SSL_CERT_FILE from; default process.env. */
  env?: NodeJS.ProcessEnv;
}

function parseChallenge(header: string): { scheme: string; params: Record<string, string> } {
  const space = header.indexOf(' ');
  const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
  const params: Record<string, string> = {};
  const re = /(\w+)="([^"]*)"/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(header))) params[m[1]!] = m[2]!;
  return { scheme, params };
}

export class RegistryApi {
  private readonly credentials: RegistryCredentials;
  private readonly timeoutMs: number;
  private readonly platform: { os: string; architecture: string };
  private readonly authHeaders = new Map<string, string>();
  private readonly blobCache = new Map<string, Buffer>();
  private blobCacheSize = 0;
  private readonly blobCacheBytes: number;
  /** Image manifests of digest references: content-addressed, so they never change. */
  private readonly manifestsByDigest = new Map<string, { digest: string; manifest: ImageManifest }>();
  private readonly fetch: Fetch;
  /** Loopback registries that answered our TLS handshake in plain HTTP. */
  private readonly plainHttp = new Set<string>();

  constructor(opts: RegistryApiOptions = {}) {
    this.fetch = fetchTrusting(opts.caPems ?? [], opts.env ?? process.env);
    this.credentials = opts.credentials ?? new RegistryCredentials();
    this.timeoutMs = opts.timeoutMs ?? 30000;
    this.platform = opts.platform ?? { os: 'linux', architecture: 'amd64' };
    this.blobCacheBytes = opts.blobCacheBytes ?? 256 * 1024 * 1024;
  }

  private baseUrl(registry: string): string {
    const host = registry === 'docker.io' ? 'registry-1.docker.io' : registry;
    return `${this.plainHttp.has(registry) ? 'http' : 'https'}://${host}`;
  }

  private async send(registry: string, url: string, init: RequestInit): Promise<Response> {
    try {
      return await this.fetch(url, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      if (isLoopbackRegistry(registry) && url.startsWith(`https://${registry}/`) && isPlainHttpAnswer(err)) {
        this.plainHttp.add(registry);
        return this.send(registry, `http://${url.slice('https://'.length)}`, init);
      }
      const code = fetchFailureCode(err);
      const detail = isCertificateProblem(err)
        ? `its certificate is not trusted (${code}); give the CA that signed it in SSL_CERT_FILE (a bundle, as for oc; \`ocp-e2e cluster up --env-out\` writes one for the reference cluster)`
        : code;
      throw new RegistryUnreachableError(registry, detail, { cause: err });
    }
  }

  /** Gets an Authorization header for a challenge. The secret never leaves this function except in the header. */
  private async authorize(registry: string, repository: string, challenge: string, scopeActions: string): Promise<string | undefined> {
    const { scheme, params } = parseChallenge(challenge);
    const auth = this.credentials.authFor(`${registry}/${repository}`);
    const basic = auth ? 'Basic ' + Buffer.from(`${auth.username}:${auth.password}`).toString('base64') : undefined;
    if (scheme === 'basic') return basic;
    if (scheme !== 'bearer' || !params.realm) return undefined;
    const tokenUrl = new URL(params.realm);
    if (params.service) tokenUrl.searchParams.set('service', params.service);
    tokenUrl.searchParams.set('scope', params.scope ?? `repository:${repository}:${scopeActions}`);
    const res = await this.send(registry, tokenUrl.toString(), { headers: basic ? { Authorization: basic } : {} });
    if (!res.ok) {
      await res.arrayBuffer();
      throw new RegistryUnauthorizedError(
        `Registry ${registry} refused a token for ${repository} (HTTP ${res.status}); ` +
          (auth ? 'the credentials for it were rejected' : 'no credentials for it were found in the pull secret / docker config'),
        res.status,
      );
    }
    const body = (await res.json()) as { token?: string; access_token?: string };
    const token = body.token ?? body.access_token;
    return token ? `Bearer ${token}` : undefined;
  }

  /** Sends a request to `/v2/<repository>/<suffix>`, answering one auth challenge if the registry asks. */
  private async request(ref: ImageRef, suffix: string, init: RequestInit = {}, scopeActions = 'pull'): Promise<Response> {
    const url = `${this.baseUrl(ref.registry)}/v2/${ref.repository}/${suffix}`;
    const key = `${ref.registry}/${ref.repository}:${scopeActions}`;
    const withAuth = (h?: string): RequestInit => ({
      ...init,
      headers: { ...(init.headers as Record<string, string> | undefined), ...(h ? { Authorization: h } : {}) },
    });
    let res = await this.send(ref.registry, url, withAuth(this.authHeaders.get(key)));
    if (res.status === 401) {
      const challenge = res.headers.get('www-authenticate');
      await res.arrayBuffer();
      const header = challenge ? await this.authorize(ref.registry, ref.repository, challenge, scopeActions) : undefined;
      if (header) {
        this.authHeaders.set(key, header);
        res = await this.send(ref.registry, url, withAuth(header));
      }
      if (res.status === 401) {
        if (header) await res.arrayBuffer(); // without a header nothing was re-sent: the first answer was read above
        const hadCredentials = Boolean(this.credentials.authFor(`${ref.registry}/${ref.repository}`));
        throw new RegistryUnauthorizedError(
          `Registry ${ref.registry} refused access to ${ref.repository}: ` +
            (hadCredentials ? 'the credentials for it were rejected' : 'it needs credentials and none were found for it in the pull secret / docker config'),
          401,
        );
      }
    }
    return res;
  }

  private async failure(res: Response, what: string): Promise<never> {
    const text = (await res.text()).slice(0, 300);
    if (res.status === 404) throw new ImageNotFoundError(`${what}: not found in the registry (HTTP 404 ${text.trim()})`, 404);
    if (res.status === 403) throw new RegistryUnauthorizedError(`${what}: access denied (HTTP 403 ${text.trim()})`, 403);
    throw new RegistryRequestError(`${what}: HTTP ${res.status} ${text.trim()}`, res.status);
  }

  /**
   * The digest of the manifest a tag or digest reference names (an index not followed). Asked with a GET of the
   * manifest (a few KB, hashed as served): undici ends the connection after every HEAD (its guard against servers that
   * send a HEAD a body), so each HEAD cost a new TLS handshake on both sides, eleven in a spec-1 process. Docker Hub
   * counts a GET of a manifest as a pull against its rate limit and a HEAD not: there it is a HEAD and the registry's
   * `Docker-Content-Digest`.
   */
  async manifestDigest(refText: string): Promise<string> {
    const ref = parseImageRef(refText);
    if (ref.digest && this.manifestsByDigest.has(`${ref.registry}/${ref.repository}@${ref.digest}`)) return ref.digest;
    if (ref.registry !== 'docker.io') return (await this.getManifest(ref, refText)).digest;
    const res = await this.request(ref, `manifests/${ref.digest ?? ref.tag ?? 'latest'}`, {
      method: 'HEAD',
      headers: { Accept: MANIFEST_MEDIA_TYPES.join(', ') },
    });
    if (!res.ok) return this.failure(res, `Manifest of ${refText}`);
    const digest = res.headers.get('docker-content-digest');
    if (digest) return digest;
    // Some registries omit the header on HEAD; fall back to hashing the body.
    return (await this.getManifest(ref, refText)).digest;
  }

  /**
   * Whether these credentials may push to a repository (`registry/name`): starts a blob upload, as a push does, then
   * cancels it, so nothing is written. Throws RegistryUnauthorizedError when the registry refuses, and the registry's
   * answer otherwise.
   */
  async checkPushAccess(repositoryText: string): Promise<void> {
    const ref = parseImageRef(repositoryText);
    const res = await this.request(ref, 'blobs/uploads/', { method: 'POST' }, 'pull,push');
    if (res.status !== 202) return this.failure(res, `Push to ${ref.registry}/${ref.repository}`);
    await res.arrayBuffer();
    const location = res.headers.get('location');
    if (!location) return;
    const auth = this.authHeaders.get(`${ref.registry}/${ref.repository}:pull,push`);
    // Best effort: a registry also expires an upload nobody finishes.
    await this.send(ref.registry, new URL(location, this.baseUrl(ref.registry)).toString(), { method: 'DELETE', headers: auth ? { Authorization: auth } : {} })
      .then((r) => r.arrayBuffer())
      .catch(() => undefined);
  }

  /**
   * Deletes the manifest `repo@sha256:…` names (the distribution spec deletes by digest only, and with it every tag
   * that points at it). `unsupported` when the registry does not allow deletes (405, or a distribution UNSUPPORTED
   * error), `gone` when it has no such manifest; any other refusal throws, as every request here does.
   */
  async deleteManifest(refText: string): Promise<'deleted' | 'unsupported' | 'gone'> {
    const ref = parseImageRef(refText);
    if (!ref.digest) throw new Error(`${refText}: a manifest is deleted by digest (repo@sha256:…), not by tag`);
    const res = await this.request(ref, `manifests/${ref.digest}`, { method: 'DELETE' }, 'pull,push,delete');
    // what was read of it before is no answer to "is it there" any more
    this.manifestsByDigest.delete(`${ref.registry}/${ref.repository}@${ref.digest}`);
    if (res.status === 202 || res.status === 200) {
      await res.arrayBuffer();
      return 'deleted';
    }
    if (res.status === 404) {
      await res.arrayBuffer();
      return 'gone';
    }
    if (res.status === 405) {
      await res.arrayBuffer();
      return 'unsupported';
    }
    const text = await res.clone().text();
    if (/"code"\s*:\s*"UNSUPPORTED"/.test(text)) return 'unsupported';
    return this.failure(res, `Delete of ${refText}`);
  }

  /** True when the tag or digest exists in the registry. */
  async hasImage(refText: string): Promise<boolean> {
    try {
      await this.manifestDigest(refText);
      return true;
    } catch (err) {
      if (err instanceof ImageNotFoundError) return false;
      throw err;
    }
  }

  private async getManifest(ref: ImageRef, refText: string, reference = ref.digest ?? ref.tag ?? 'latest'): Promise<{ digest: string; mediaType: string; body: Record<string, unknown>; size: number }> {
    const res = await this.request(ref, `manifests/${reference}`, { headers: { Accept: MANIFEST_MEDIA_TYPES.join(', ') } });
    if (!res.ok) return this.failure(res, `Manifest of ${refText}`);
    const raw = Buffer.from(await res.arrayBuffer());
    const digest = 'sha256:' + createHash('sha256').update(raw as unknown as Uint8Array).digest('hex');
    if (reference.startsWith('sha256:') && digest !== reference) {
      throw new RegistryRequestError(`Manifest of ${refText} does not match its digest (got ${digest})`, res.status);
    }
    const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    const mediaType = (body.mediaType as string | undefined) ?? res.headers.get('content-type') ?? '';
    return { digest, mediaType, body, size: raw.length };
  }

  /**
   * A manifest as the registry serves it, an index not followed: its digest, media type, parsed body and size in bytes
   * (what an index entry's descriptor needs).
   */
  async rawManifest(refText: string): Promise<{ digest: string; mediaType: string; body: Record<string, unknown>; size: number }> {
    return this.getManifest(parseImageRef(refText), refText);
  }

  /** Uploads a blob to a repository (`registry/name`) in one request, unless the registry has it; returns its digest. */
  async pushBlob(repositoryText: string, data: Buffer): Promise<string> {
    const ref = parseImageRef(repositoryText);
    const digest = 'sha256:' + createHash('sha256').update(data as unknown as Uint8Array).digest('hex');
    const head = await this.request(ref, `blobs/${digest}`, { method: 'HEAD' }, 'pull,push');
    if (head.ok) return digest;
    const start = await this.request(ref, 'blobs/uploads/', { method: 'POST' }, 'pull,push');
    if (start.status !== 202) return this.failure(start, `Blob upload to ${ref.registry}/${ref.repository}`);
    await start.arrayBuffer();
    const location = new URL(start.headers.get('location') ?? '', this.baseUrl(ref.registry));
    location.searchParams.set('digest', digest);
    const auth = this.authHeaders.get(`${ref.registry}/${ref.repository}:pull,push`);
    const res = await this.send(ref.registry, location.toString(), {
      method: 'PUT',
      headers: { 'Content-Type': 'application/octet-stream', ...(auth ? { Authorization: auth } : {}) },
      body: data as unknown as BodyInit,
    });
    if (res.status !== 201) return this.failure(res, `Blob ${digest} to ${ref.registry}/${ref.repository}`);
    await res.arrayBuffer();
    return digest;
  }

  /** Puts a manifest (image or index) under a tag; returns the digest the registry gives it. */
  async pushManifest(refText: string, mediaType: string, raw: Buffer): Promise<string> {
    const ref = parseImageRef(refText);
    const res = await this.request(ref, `manifests/${ref.tag ?? ref.digest ?? 'latest'}`, { method: 'PUT', headers: { 'Content-Type': mediaType }, body: raw as unknown as BodyInit }, 'pull,push');
    if (res.status !== 201) return this.failure(res, `Manifest ${refText}`);
    await res.arrayBuffer();
    return res.headers.get('docker-content-digest') ?? 'sha256:' + createHash('sha256').update(raw as unknown as Uint8Array).digest('hex');
  }

  /** The image manifest (config + layers), following an index to this client's platform. */
  async imageManifest(refText: string): Promise<{ digest: string; manifest: ImageManifest }> {
    const ref = parseImageRef(refText);
    const cacheKey = ref.digest ? `${ref.registry}/${ref.repository}@${ref.digest}` : undefined;
    const cached = cacheKey ? this.manifestsByDigest.get(cacheKey) : undefined;
    if (cached) return cached;
    let got = await this.getManifest(ref, refText);
    if (INDEX_MEDIA_TYPES.has(got.mediaType)) {
      const manifests = (got.body.manifests as Descriptor[] | undefined) ?? [];
      const pick = manifests.find(
        (m) => m.platform?.os === this.platform.os && m.platform?.architecture === this.platform.architecture,
      );
      if (!pick) {
        throw new ImageNotFoundError(`${refText} has no image for ${this.platform.os}/${this.platform.architecture}`, 404);
      }
      got = await this.getManifest(ref, refText, pick.digest);
    }
    const manifest = got.body as unknown as ImageManifest;
    if (!Array.isArray(manifest.layers)) {
      throw new RegistryRequestError(`${refText}: unsupported manifest type ${got.mediaType || '(none)'}`, undefined);
    }
    const result = { digest: got.digest, manifest };
    if (cacheKey) this.manifestsByDigest.set(cacheKey, result);
    return result;
  }

  /** A blob's bytes (cached in memory by digest, verified against the digest). */
  async blob(refText: string, digest: string): Promise<Buffer> {
    const cached = this.blobCache.get(digest);
    if (cached) return cached;
    const ref = parseImageRef(refText);
    const res = await this.request(ref, `blobs/${digest}`);
    if (!res.ok) return this.failure(res, `Blob ${digest} of ${refText}`);
    const data = Buffer.from(await res.arrayBuffer());
    const actual = 'sha256:' + createHash('sha256').update(data as unknown as Uint8Array).digest('hex');
    if (actual !== digest) throw new RegistryRequestError(`Blob ${digest} of ${refText} arrived corrupted (hash ${actual})`, res.status);
    if (data.length <= this.blobCacheBytes) {
      while (this.blobCacheSize + data.length > this.blobCacheBytes && this.blobCache.size) {
        const [oldest, buf] = this.blobCache.entries().next().value as [string, Buffer];
        this.blobCache.delete(oldest);
        this.blobCacheSize -= buf.length;
      }
      this.blobCache.set(digest, data);
      this.blobCacheSize += data.length;
    }
    return data;
  }

  /** The image's config JSON (labels, env, created). */
  async imageConfig(refText: string): Promise<Record<string, unknown>> {
    const { manifest } = await this.imageManifest(refText);
    return JSON.parse((await this.blob(refText, manifest.config.digest)).toString('utf8')) as Record<string, unknown>;
  }
}
