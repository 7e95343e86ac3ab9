/**
 * The reference cluster's image registry, served as a real cluster's is: HTTPS with a certificate from the cluster's
 * CA (the one that signed the API server's), and credentials required for every pull and push (htpasswd, a random
 * password per start). The credentials are what the cluster's pull secret (openshift-config/pull-secret) holds.
 *
 * Clients are handed files, never the secret itself: the CA, a CA bundle for SSL_CERT_FILE (the system roots plus
 * the cluster CA, so `oc` still trusts public registries), and a docker config with the credentials (0600) that serves
 * as REGISTRY_AUTH_FILE (oc, podman) and as DOCKER_CONFIG/config.json (the docker CLI). The engines on this machine
 * are made to trust the CA through certs.d (podman needs it; dockerd treats loopback registries as insecure anyway).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { rootCertificates } from 'node:tls';
import path from 'node:path';
import { issueServingCertificate, type CertificateAuthority } from '../mock/index.js';
import { parseDockerConfig, type RegistryCredentials } from '../lib/oci/credentials.js';
import type { EngineWhenNeeded } from '../lib/oci/engine.js';
import { htpasswdLine } from '../lib/oci/htpasswd.js';
import { startLocalRegistry, type LocalRegistry } from '../lib/oci/local-registry.js';
import { trustRegistryCa, type RegistryTrust } from '../lib/oci/registry-trust.js';

/** The user name in the pull secret; the password is random per start. */
export const REGISTRY_USER = 'ocp-e2e';

/**
 * What the reference's own clients of its registry trust (the nodes' pulls, the release images' checks): the system
 * roots and the cluster's CA they are given, never the environment of the machine running the reference (a shell's
 * SSL_CERT_FILE is for oc there, not for the cluster's nodes). An empty environment gives exactly that, and spares the
 * launcher parsing a whole CA bundle at every cluster start (~35 ms).
 */
export const REFERENCE_TRUST_ENV: NodeJS.ProcessEnv = Object.freeze({});

export interface ClusterRegistryFiles {
  /** The cluster CA alone (PEM). */
  caFile: string;
  /** System roots plus the cluster CA: what SSL_CERT_FILE should name. */
  caBundleFile: string;
  /** Docker config JSON with the registry's credentials (mode 0600): REGISTRY_AUTH_FILE. */
  authFile: string;
  /** Folder whose config.json is authFile: DOCKER_CONFIG. */
  dockerConfigDir: string;
}

export interface ClusterRegistry {
  /** `127.0.0.1:PORT` */
  address: string;
  kind: LocalRegistry['kind'];
  caPem: string;
  /** The pull secret's `.dockerconfigjson` text. Secret: never log it. */
  pullSecretJson: string;
  credentials: RegistryCredentials;
  files: ClusterRegistryFiles;
  /** certs.d files written for the engines, and folders that could not be written. */
  engineTrust: Pick<RegistryTrust, 'installed' | 'skipped'>;
  stop(): Promise<void>;
}

export interface ClusterRegistryOptions {
  /** Registry storage (kept across starts). */
  storageDir: string;
  /** Private folder (0700) for certificates, htpasswd and the auth file; its owner removes it. */
  secretsDir: string;
  ca: CertificateAuthority;
  engine?: EngineWhenNeeded;
  /** certs.d roots to install the CA in (default: the engines' own, see lib/oci/registry-trust.ts). */
  certsDirRoots?: string[];
}

const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt'];

function systemRoots(): string {
  for (const file of SYSTEM_BUNDLES) {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      // try the next
    }
  }
  return rootCertificates.join('\n');
}

export async function startClusterRegistry(opts: ClusterRegistryOptions): Promise<ClusterRegistry> {
  const dir = opts.secretsDir;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const serving = issueServingCertificate(opts.ca, ['127.0.0.1', 'localhost', '::1'], 'ocp-e2e reference registry');
  const certFile = path.join(dir, 'registry.crt');
  const keyFile = path.join(dir, 'registry.key');
  const htpasswdFile = path.join(dir, 'htpasswd');
  await writeFile(certFile, serving.certPem, { mode: 0o600 });
  await writeFile(keyFile, serving.keyPem, { mode: 0o600 });
  const password = randomBytes(18).toString('base64url');
  await writeFile(htpasswdFile, htpasswdLine(REGISTRY_USER, password), { mode: 0o600 });

  const registry = await startLocalRegistry({
    storageDir: opts.storageDir,
    htpasswdFile,
    tls: { certFile, keyFile, caPem: opts.ca.caPem },
    engine: opts.engine,
  });
  try {
    const pullSecretJson = JSON.stringify({
      auths: { [registry.address]: { auth: Buffer.from(`${REGISTRY_USER}:${password}`).toString('base64'), email: 'ocp-e2e@reference.invalid' } },
    });
    const dockerConfigDir = path.join(dir, 'docker');
    await mkdir(dockerConfigDir, { recursive: true, mode: 0o700 });
    const files: ClusterRegistryFiles = {
      caFile: path.join(dir, 'ca.crt'),
      caBundleFile: path.join(dir, 'ca-bundle.crt'),
      authFile: path.join(dockerConfigDir, 'config.json'),
      dockerConfigDir,
    };
    await writeFile(files.caFile, opts.ca.caPem, { mode: 0o644 });
    await writeFile(files.caBundleFile, `${systemRoots().trimEnd()}\n${opts.ca.caPem}`, { mode: 0o644 });
    await writeFile(files.authFile, pullSecretJson + '\n', { mode: 0o600 });
    const trust = await trustRegistryCa(registry.address, opts.ca.caPem, opts.certsDirRoots);
    return {
      address: registry.address,
      kind: registry.kind,
      caPem: opts.ca.caPem,
      pullSecretJson,
      credentials: parseDockerConfig(pullSecretJson, 'the reference pull secret'),
      files,
      engineTrust: { installed: trust.installed, skipped: trust.skipped },
      async stop() {
        await trust.undo();
        await registry.stop();
      },
    };
  } catch (error) {
    await registry.stop();
    throw error;
  }
}
