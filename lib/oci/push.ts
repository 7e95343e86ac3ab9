// Pushes a locally built image with the engine, with the credentials for its registry, then asks the registry itself
// which digest the tag now has: the pullspec returned is `name@sha256:…` as the registry serves it.
import { RegistryCredentials, type RegistryAuth } from './credentials.js';
import { identifyEngine, type Engine } from './engine.js';
import { engineTlsQuery } from './engine-tls.js';
import { ImagePushError, PushUnauthorizedError, RegistryUnreachableError } from './errors.js';
import { parseImageRef, repositoryName } from './image-ref.js';
import { BuildStreamParser } from './build.js';
import { RegistryClient } from './image-files.js';

export interface PushResult {
  /** `sha256:…` as the registry reports it (Docker-Content-Digest). */
  digest: string;
  /** `registry/repository@sha256:…` */
  pullspec: string;
  /** The digest the engine announced at the end of the push. */
  engineDigest?: string;
  durationMs: number;
}

export interface PushOptions {
  /** Credentials store (pull secret / docker config) or the credentials for this registry. */
  auth?: RegistryCredentials | RegistryAuth;
  /** Default 5 minutes. */
  timeoutMs?: number;
  /** Client used to read the digest back; default one built from `auth` and `caPems`. */
  registryClient?: RegistryClient;
  /** CAs to trust when reading the digest back, besides the system's (or SSL_CERT_FILE's). */
  caPems?: string[];
}

/** The credentials for the repository pushed to: the most specific auth key that matches it (host/path, host). */
function authForRepository(auth: PushOptions['auth'], repository: string): RegistryAuth | undefined {
  if (!auth) return undefined;
  if (auth instanceof RegistryCredentials) return auth.authFor(repository);
  return auth;
}

function classifyPushError(message: string, registry: string, repository: string, hadCredentials: boolean, engineName: string): Error {
  if (/No such image|does not exist locally|tag does not exist/i.test(message)) {
    return new ImagePushError(`Cannot push ${registry}/${repository}: the engine has no image with that tag; build or tag it first (${message})`);
  }
  if (/unauthorized|authentication required|denied|no basic auth credentials|401|403/i.test(message)) {
    return new PushUnauthorizedError(registry, repository, message, hadCredentials);
  }
  if (/server gave HTTP response to HTTPS client/i.test(message)) {
    return new RegistryUnreachableError(registry, `${engineName} spoke HTTPS and the registry answered in plain HTTP (${message}); serve the registry over TLS, or for a loopback registry let the engine use plain HTTP`);
  }
  if (/x509|certificate/i.test(message)) {
    return new RegistryUnreachableError(registry, `${engineName} does not trust the registry's certificate (${message}); put its CA in /etc/containers/certs.d/${registry}/ca.crt (podman) or /etc/docker/certs.d/${registry}/ca.crt (dockerd)`);
  }
  if (/connection refused|no such host|i\/o timeout|dial tcp|EOF|connection reset/i.test(message)) {
    return new RegistryUnreachableError(registry, `${engineName}: ${message}`);
  }
  return new ImagePushError(`Push of ${registry}/${repository} by ${engineName} failed: ${message}`);
}

/** Pushes `tag` (`registry/repo:tag`) and returns the digest the registry holds for it. */
export async function pushImage(engine: Engine, tag: string, opts: PushOptions = {}): Promise<PushResult> {
  const started = Date.now();
  const ref = parseImageRef(tag);
  if (!ref.tag) throw new ImagePushError(`pushImage needs a tagged reference (registry/repository:tag), got "${tag}"`);
  const credentials = authForRepository(opts.auth, `${ref.registry}/${ref.repository}`);
  const repo = repositoryName(ref);
  const engineName = (await identifyEngine(engine)).name;
  const tlsQuery = await engineTlsQuery(engine, [ref.registry]);
  let engineDigest: string | undefined;
  let failure: Error | undefined;
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, opts.timeoutMs ?? 5 * 60_000);
  const parser = new BuildStreamParser((o) => {
    const obj = o as { error?: string; errorDetail?: { message?: string }; aux?: { Digest?: string }; status?: string };
    if (obj.errorDetail || obj.error) {
      failure ??= classifyPushError(obj.errorDetail?.message ?? obj.error ?? 'unknown error', ref.registry, ref.repository, Boolean(credentials), engineName);
    }
    if (obj.aux?.Digest) engineDigest = obj.aux.Digest;
  });
  try {
    const stream = (await engine.getImage(repo).push({
      tag: ref.tag,
      // The engine wants an X-Registry-Auth header even for anonymous pushes; an empty object is anonymous.
      authconfig: credentials ? { ...credentials, serveraddress: ref.registry } : {},
      abortSignal: abort.signal,
      ...tlsQuery,
    } as never)) as unknown as NodeJS.ReadableStream;
    await new Promise<void>((resolve, reject) => {
      stream.on('data', (c: Buffer) => parser.push(c));
      stream.on('end', () => {
        parser.end();
        resolve();
      });
      stream.on('close', () => resolve());
      stream.on('error', reject);
    });
  } catch (err) {
    if (!timedOut) {
      const message = (err as { json?: { message?: string } }).json?.message ?? (err as Error).message;
      failure ??= classifyPushError(message, ref.registry, ref.repository, Boolean(credentials), engineName);
    }
  } finally {
    clearTimeout(timer);
  }
  if (timedOut) throw new ImagePushError(`Push of ${tag} did not finish within ${opts.timeoutMs ?? 300000} ms and was cancelled`);
  if (failure) throw failure;

  const client =
    opts.registryClient ??
    new RegistryClient({
      credentials: credentials ? new RegistryCredentials([[ref.registry, credentials]]) : undefined,
      caPems: opts.caPems,
    });
  const digest = await client.manifestDigest(tag);
  if (engineDigest && engineDigest !== digest) {
    throw new ImagePushError(
      `After pushing ${tag} the registry serves ${digest} but the engine pushed ${engineDigest}: someone else moved the tag meanwhile; use a tag unique to this run`,
    );
  }
  return { digest, pullspec: `${repo}@${digest}`, engineDigest, durationMs: Date.now() - started };
}
