// Registry credentials from an OpenShift pull secret or a docker / containers auth file (same format: {"auths":
// {key: {auth}}}, plus docker's credHelpers and credsStore). Keys are matched as docker and podman match them: a key
// is a host (`quay.io`), a host and port (`127.0.0.1:5000`) or a host and repository path prefix (`quay.io/myorg`),
// and the most specific key that prefixes the repository wins. The secret values are kept out of every string form
// of these objects, so a log line or an error never shows them.
import { readFile } from 'node:fs/promises';
import { chooseAuthFile } from './auth-file.js';
import { ImageHelperError } from './errors.js';
import { runCredentialHelper, type HelperEnv } from './credential-helpers.js';

export interface RegistryAuth {
  username: string;
  password: string;
}

const SECRETS = Symbol('secrets');

/** Credentials by auth key. Printing it (String, JSON, util.inspect) shows the keys (hosts) only. */
export class RegistryCredentials {
  private readonly [SECRETS]: Map<string, RegistryAuth>;
  /**
   * What could not be read, said for a person (a credential helper that is not on PATH...): never a secret. The
   * hosts named here have no entry.
   */
  readonly problems: readonly string[];

  constructor(entries: Iterable<[string, RegistryAuth]> = [], problems: readonly string[] = []) {
    this[SECRETS] = new Map();
    for (const [key, auth] of entries) this[SECRETS].set(normalizeAuthKey(key), auth);
    this.problems = problems;
  }

  /** The keys we hold credentials for: hosts, or host/path prefixes. */
  hosts(): string[] {
    return [...this[SECRETS].keys()];
  }

  /**
   * Credentials for an image or repository (`quay.io/myorg/os:tag`, `quay.io/myorg/os`) or a registry host
   * (`quay.io`, `127.0.0.1:5000`), or undefined: the longest key that is the repository or one of its path
   * prefixes, else the host's. A key with a port matches only that port.
   */
  authFor(reference: string): RegistryAuth | undefined {
    const key = this.keyFor(reference);
    return key === undefined ? undefined : this[SECRETS].get(key);
  }

  /** The key authFor would use for `reference` (not secret): which entry answers for a repository. */
  keyFor(reference: string): string | undefined {
    const wanted = normalizeLookup(reference);
    for (let candidate = wanted; ; ) {
      if (this[SECRETS].has(candidate)) return candidate;
      const slash = candidate.lastIndexOf('/');
      if (slash < 0) return undefined;
      candidate = candidate.slice(0, slash);
    }
  }

  /**
   * dockerode `registryconfig` (X-Registry-Config): credentials for every registry a build may pull a base from.
   * The engine takes one entry per host: a host's own key, else the first of its path keys.
   */
  toRegistryConfig(): Record<string, { username: string; password: string; serveraddress: string }> {
    const out: Record<string, { username: string; password: string; serveraddress: string }> = {};
    const byHost = [...this[SECRETS]].sort(([a], [b]) => a.split('/').length - b.split('/').length);
    for (const [key, auth] of byHost) {
      const host = key.split('/')[0]!;
      out[host] ??= { ...auth, serveraddress: host };
    }
    return out;
  }

  /** These credentials, with `fallback`'s for the keys these lack. */
  withFallback(fallback: RegistryCredentials): RegistryCredentials {
    return new RegistryCredentials([...fallback[SECRETS], ...this[SECRETS]], this.problems);
  }

  /** A docker config / pull secret text holding these credentials: secret, only for a private (0600) file. */
  toDockerConfigJson(): string {
    const auths: Record<string, { auth: string }> = {};
    for (const [key, a] of this[SECRETS]) auths[key] = { auth: Buffer.from(`${a.username}:${a.password}`).toString('base64') };
    return JSON.stringify({ auths });
  }

  toJSON(): object {
    return { hosts: this.hosts() };
  }

  toString(): string {
    return `RegistryCredentials(${this.hosts().join(', ')})`;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString();
  }
}

const DOCKER_HUB_ALIASES = new Set(['index.docker.io', 'registry-1.docker.io']);

function hostAlias(host: string): string {
  const h = host.toLowerCase();
  return DOCKER_HUB_ALIASES.has(h) ? 'docker.io' : h;
}

/**
 * An auth file key as docker and podman read it: `quay.io`, `quay.io/myorg/repo`; a key written with a scheme
 * (`https://index.docker.io/v1/`, the legacy form of `docker login`) names its host alone, its path is an API path.
 */
export function normalizeAuthKey(key: string): string {
  const trimmed = key.trim();
  const legacy = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed);
  const rest = trimmed.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/+$/, '');
  const [host, ...segments] = rest.split('/');
  if (legacy || segments.length === 0) return hostAlias(host!);
  return [hostAlias(host!), ...segments].join('/');
}

/** What is looked up: an image reference without tag or digest (`host/path`), or a host; a scheme means a host. */
function normalizeLookup(reference: string): string {
  const bare = reference.trim().replace(/@sha256:[0-9a-f]+$/i, '');
  const noTag = bare.replace(/:([\w][\w.-]{0,127})$/, (whole, tag: string, at: number) => (bare.slice(0, at).includes('/') ? '' : whole));
  return normalizeAuthKey(noTag);
}

/** `https://index.docker.io/v1/` → `docker.io`; `quay.io/` → `quay.io`; `quay.io/myorg/os` → `quay.io`. */
export function normalizeRegistryHost(host: string): string {
  return normalizeAuthKey(host).split('/')[0]!;
}

export class CredentialsFileError extends ImageHelperError {}

export interface ParseOptions {
  /** Run the credential helpers the file names (docker-credential-<name> on this PATH); default: they are not run. */
  credentialHelpers?: HelperEnv;
  /** A file with none of auths, credHelpers, credsStore is valid and holds nothing (a docker config after logout). */
  allowEmpty?: boolean;
}

interface AuthFile {
  auths?: Record<string, unknown>;
  credHelpers?: Record<string, unknown>;
  credsStore?: unknown;
}

const EXPECTED = 'expected {"auths": {"registry.example.com": {"auth": "base64(user:password)"}}}';

function isObject(value: unknown): value is Record<string, unknown> {
  return Boolean(value) && typeof value === 'object' && !Array.isArray(value);
}

/** Parses the text of a pull secret / auth file. Entries without usable credentials are skipped. */
export function parseDockerConfig(text: string, source = 'docker config', options: ParseOptions = {}): RegistryCredentials {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    // Never echo the content: it is a secret.
    const at = /position (\d+)/.exec((err as Error).message)?.[1];
    throw new CredentialsFileError(`${source} is not JSON${at ? ` (at character ${at})` : ''}; ${EXPECTED}`);
  }
  if (!isObject(doc)) throw new CredentialsFileError(`${source} is not a JSON object; ${EXPECTED}`);
  const file = doc as AuthFile;
  if (file.auths !== undefined && !isObject(file.auths)) throw new CredentialsFileError(`${source}: "auths" is not an object; ${EXPECTED}`);
  if (file.credHelpers !== undefined && !(isObject(file.credHelpers) && Object.values(file.credHelpers).every((v) => typeof v === 'string'))) {
    throw new CredentialsFileError(`${source}: "credHelpers" is not an object of helper names ({"registry.example.com": "ecr-login"})`);
  }
  if (file.credsStore !== undefined && typeof file.credsStore !== 'string') throw new CredentialsFileError(`${source}: "credsStore" is not a helper name`);
  if (file.auths === undefined && file.credHelpers === undefined && file.credsStore === undefined && !options.allowEmpty) {
    throw new CredentialsFileError(`${source} has no "auths" object; ${EXPECTED}`);
  }

  const entries: [string, RegistryAuth][] = [];
  const problems: string[] = [];
  for (const [key, entry] of Object.entries(file.auths ?? {})) {
    if (!isObject(entry)) continue;
    if (typeof entry.auth === 'string' && entry.auth) {
      const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) entries.push([key, { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) }]);
      else throw new CredentialsFileError(`${source}: the "auth" of ${normalizeAuthKey(key)} is not base64 of user:password`);
    } else if (typeof entry.username === 'string' && typeof entry.password === 'string') {
      entries.push([key, { username: entry.username, password: entry.password }]);
    }
  }
  // Helpers come after auths: docker asks a host's credHelper (or the credsStore) before the file's own entries.
  const helped = credentialsFromHelpers(file, source, options.credentialHelpers, problems);
  return new RegistryCredentials([...entries, ...helped], problems);
}

function credentialsFromHelpers(file: AuthFile, source: string, env: HelperEnv | undefined, problems: string[]): [string, RegistryAuth][] {
  const perHost = Object.entries((file.credHelpers ?? {}) as Record<string, string>);
  const store = file.credsStore as string | undefined;
  if (!perHost.length && !store) return [];
  if (!env) {
    const named = [...perHost.map(([host, helper]) => `${normalizeAuthKey(host)} (docker-credential-${helper})`), ...(store ? [`the credsStore docker-credential-${store}`] : [])];
    problems.push(`${source} keeps credentials in credential helpers, which are not run here: ${named.join(', ')}`);
    return [];
  }
  const out: [string, RegistryAuth][] = [];
  if (store) {
    const listed = runCredentialHelper(store, 'list', '', env);
    if (listed.kind === 'ok') {
      for (const server of Object.keys(listed.value as Record<string, unknown>)) {
        if (perHost.some(([host]) => normalizeAuthKey(host) === normalizeAuthKey(server))) continue;
        const got = runCredentialHelper(store, 'get', server, env);
        if (got.kind === 'ok' && got.auth) out.push([server, got.auth]);
        else if (got.kind === 'failed') problems.push(`${source}: the credsStore docker-credential-${store} did not give credentials for ${normalizeAuthKey(server)}: ${got.why}`);
      }
    } else if (listed.kind === 'failed') {
      problems.push(`${source}: its credsStore docker-credential-${store} cannot be used: ${listed.why}`);
    }
  }
  for (const [host, helper] of perHost) {
    const got = runCredentialHelper(helper, 'get', host, env);
    if (got.kind === 'ok' && got.auth) out.push([host, got.auth]);
    else if (got.kind === 'failed') problems.push(`${source}: the credential helper docker-credential-${helper} for ${normalizeAuthKey(host)} cannot be used: ${got.why}`);
  }
  return out;
}

/**
 * Loads credentials from `file` when given (a pull secret or auth file), else from the first auth file of
 * auth-file.ts that exists. No file at all gives empty credentials. Credential helpers are not run.
 */
export async function loadRegistryCredentials(file?: string, env: NodeJS.ProcessEnv = process.env): Promise<RegistryCredentials> {
  const choice = chooseAuthFile(file, env);
  if (!choice) return new RegistryCredentials();
  let text: string;
  try {
    text = await readFile(choice.path, 'utf8');
  } catch (err) {
    throw new CredentialsFileError(`Cannot read credentials file ${choice.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseDockerConfig(text, choice.path, { allowEmpty: choice.source !== '--pull-secret' });
}
