/**
 * One process-wide list of secret values (pull-secret auths, passwords, bearer tokens) and a masker every output path
 * goes through: command output, attachments, artefacts, failure messages. A secret registered once is masked
 * everywhere afterwards, including its base64 form, since registry auths travel both ways.
 */
import { readFileSync } from 'node:fs';

const MASK = '***';
const secrets = new Set<string>();

/** Values shorter than this are not masked: masking "a" or "on" would shred every message. */
const MIN_SECRET_LENGTH = 6;

export function registerSecret(value: string | undefined | null): void {
  if (!value || value.length < MIN_SECRET_LENGTH) return;
  secrets.add(value);
  const encoded = Buffer.from(value, 'utf8').toString('base64');
  if (encoded.length >= MIN_SECRET_LENGTH) secrets.add(encoded);
}

export function maskSecrets(text: string): string {
  if (secrets.size === 0 || !text) return text;
  // Longest first, so a secret that contains another is masked whole.
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  let out = text;
  for (const s of ordered) out = out.split(s).join(MASK);
  return out;
}

/** Replaces secret values inside any JSON-able value (objects are copied, never changed in place). */
export function maskDeep<T>(value: T): T {
  if (secrets.size === 0) return value;
  return JSON.parse(maskSecrets(JSON.stringify(value))) as T;
}

export interface RegistryAuth {
  username?: string;
  password?: string;
  auth?: string;
  serveraddress?: string;
}

export interface PullSecret {
  /** The docker config JSON text, as registries and engines expect it. */
  json: string;
  auths: Record<string, RegistryAuth>;
}

/**
 * Reads a pull secret (`{"auths": {"host": {"auth": base64(user:pass)}}}`), registers every credential in it as a
 * secret, and returns it. A file that is not such JSON is an environment error the user can fix, said plainly.
 */
export function loadPullSecret(path: string): PullSecret {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the pull secret ${path}: ${(error as Error).message}`);
  }
  return parsePullSecret(text, path);
}

/** Parses pull secret text (from a file or the cluster's openshift-config/pull-secret) and registers its secrets. */
export function parsePullSecret(text: string, path: string): PullSecret {
  registerSecret(text.trim());
  let parsed: { auths?: Record<string, RegistryAuth> };
  try {
    parsed = JSON.parse(text) as { auths?: Record<string, RegistryAuth> };
  } catch {
    throw new Error(`the pull secret ${path} is not JSON; expected {"auths": {"<registry>": {"auth": "<base64 user:password>"}}}`);
  }
  if (!parsed || typeof parsed !== 'object' || !parsed.auths || typeof parsed.auths !== 'object' || Array.isArray(parsed.auths)) {
    throw new Error(`the pull secret ${path} has no "auths" object; expected {"auths": {"<registry>": {"auth": "<base64 user:password>"}}}`);
  }
  const auths = parsed.auths;
  for (const entry of Object.values(auths)) {
    registerSecret(entry.auth);
    registerSecret(entry.password);
    if (entry.auth) {
      const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
      registerSecret(decoded);
      const colon = decoded.indexOf(':');
      if (colon >= 0) registerSecret(decoded.slice(colon + 1));
    }
  }
  return { json: text, auths };
}
