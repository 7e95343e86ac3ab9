// Registry credentials from an OpenShift pull secret or a docker config file (same format: {"auths": {host: {auth}}}).
// The secret values are kept out of every string form of these objects so a log line or an error never shows them.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { ImageHelperError } from './errors.js';

export interface RegistryAuth {
  username: string;
  password: string;
}

const SECRETS = Symbol('secrets');

/** Credentials by registry host. Printing it (String, JSON, util.inspect) shows hosts only. */
export class RegistryCredentials {
  private readonly [SECRETS]: Map<string, RegistryAuth>;

  constructor(entries: Iterable<[string, RegistryAuth]> = []) {
    this[SECRETS] = new Map();
    for (const [host, auth] of entries) this[SECRETS].set(normalizeRegistryHost(host), auth);
  }

  /** The hosts we hold credentials for. */
  hosts(): string[] {
    return [...this[SECRETS].keys()];
  }

  /** Credentials for a registry host (`quay.io`, `127.0.0.1:5000`), or undefined. */
  authFor(registry: string): RegistryAuth | undefined {
    return this[SECRETS].get(normalizeRegistryHost(registry));
  }

  /** dockerode `registryconfig` (X-Registry-Config): credentials for every registry a build may pull a base from. */
  toRegistryConfig(): Record<string, { username: string; password: string; serveraddress: string }> {
    const out: Record<string, { username: string; password: string; serveraddress: string }> = {};
    for (const [host, auth] of this[SECRETS]) out[host] = { ...auth, serveraddress: host };
    return out;
  }

  /** These credentials, with `fallback`'s for the hosts these lack. */
  withFallback(fallback: RegistryCredentials): RegistryCredentials {
    return new RegistryCredentials([...fallback[SECRETS], ...this[SECRETS]]);
  }

  /** A docker config / pull secret text holding these credentials: secret, only for a private (0600) file. */
  toDockerConfigJson(): string {
    const auths: Record<string, { auth: string }> = {};
    for (const [host, a] of this[SECRETS]) auths[host] = { auth: Buffer.from(`${a.username}:${a.password}`).toString('base64') };
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

/** `https://index.docker.io/v1/` → `docker.io`; `quay.io/` → `quay.io`. */
export function normalizeRegistryHost(host: string): string {
  let h = host.trim().replace(/^[a-z]+:\/\//i, '');
  h = h.split('/')[0]!;
  if (h === 'index.docker.io' || h === 'registry-1.docker.io') return 'docker.io';
  return h.toLowerCase();
}

export class CredentialsFileError extends ImageHelperError {}

/** Parses the text of a pull secret / docker config. Entries without usable credentials are skipped. */
export function parseDockerConfig(text: string, source = 'docker config'): RegistryCredentials {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    // Never echo the content: it is a secret.
    throw new CredentialsFileError(`${source} is not valid JSON (${(err as Error).message.replace(/".*"/, '…')})`);
  }
  const auths = (doc as { auths?: Record<string, Record<string, unknown>> })?.auths;
  if (!auths || typeof auths !== 'object') {
    throw new CredentialsFileError(`${source} has no "auths" object; expected {"auths": {"registry.example.com": {"auth": "base64(user:password)"}}}`);
  }
  const entries: [string, RegistryAuth][] = [];
  for (const [host, entry] of Object.entries(auths)) {
    if (!entry || typeof entry !== 'object') continue;
    if (typeof entry.auth === 'string' && entry.auth) {
      const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) entries.push([host, { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) }]);
    } else if (typeof entry.username === 'string' && typeof entry.password === 'string') {
      entries.push([host, { username: entry.username, password: entry.password }]);
    }
  }
  return new RegistryCredentials(entries);
}

/**
 * Loads credentials from `file` when given (a pull secret or docker config), else from $REGISTRY_AUTH_FILE,
 * $DOCKER_CONFIG/config.json or ~/.docker/config.json, the first that exists. No file at all gives empty credentials.
 */
export async function loadRegistryCredentials(file?: string, env: NodeJS.ProcessEnv = process.env): Promise<RegistryCredentials> {
  const candidates = file
    ? [file]
    : [
        env.REGISTRY_AUTH_FILE,
        env.DOCKER_CONFIG ? path.join(env.DOCKER_CONFIG, 'config.json') : undefined,
        path.join(homedir(), '.docker', 'config.json'),
      ].filter((p): p is string => Boolean(p));
  for (const candidate of candidates) {
    let text: string;
    try {
      text = await readFile(candidate, 'utf8');
    } catch (err) {
      if (file) throw new CredentialsFileError(`Cannot read credentials file ${candidate}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      continue;
    }
    return parseDockerConfig(text, candidate);
  }
  return new RegistryCredentials();
}
