/**
 * One process-wide list of secret values (pull-secret auths, passwords, bearer tokens) and a masker every output path
 * goes through: command output, attachments, artefacts, failure messages. A secret registered once is masked
 * everywhere afterwards, including its base64 form, since registry auths travel both ways.
 */
import { readFileSync } from 'node:fs';
import { unreadableReason } from '../lib/files/unreadable.js';
import { parseDockerConfig, type RegistryCredentials } from '../lib/oci/credentials.js';

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
 * Reads a pull secret or auth file (`{"auths": {"host": {"auth": base64(user:pass)}}}`, docker's credHelpers and
 * credsStore too), registers every credential in it as a secret, and returns it. A file that is not such JSON is an
 * environment error the user can fix, said plainly.
 */
export function loadPullSecret(path: string, options: PullSecretOptions = {}): PullSecret {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the pull secret ${path}: ${unreadableReason(path, error)}`);
  }
  return parsePullSecret(text, path, options);
}

export interface PullSecretOptions {
  /** A file with no auths, credHelpers or credsStore holds nothing rather than being wrong (a found docker config). */
  allowEmpty?: boolean;
}

/**
 * Parses pull secret text (from a file or the cluster's openshift-config/pull-secret), registers its secrets, and
 * checks it as lib/oci/credentials.ts reads it, so a file this accepts is one every reader of credentials accepts.
 */
export function parsePullSecret(text: string, path: string, options: PullSecretOptions = {}): PullSecret {
  registerSecret(text.trim());
  let credentials: RegistryCredentials;
  try {
    credentials = parseDockerConfig(text, `the pull secret ${path}`, { allowEmpty: options.allowEmpty });
  } catch (error) {
    throw new Error((error as Error).message);
  }
  registerCredentials(credentials);
  const auths = ((JSON.parse(text) as { auths?: Record<string, RegistryAuth> }).auths ?? {});
  return { json: text, auths };
}

/** Registers every password of `credentials` (and its `user:password` and base64 forms, a registry auth's) for masking. */
export function registerCredentials(credentials: RegistryCredentials): void {
  for (const key of credentials.hosts()) {
    const auth = credentials.authFor(key);
    if (!auth) continue;
    registerSecret(auth.password);
    registerSecret(`${auth.username}:${auth.password}`);
  }
}
