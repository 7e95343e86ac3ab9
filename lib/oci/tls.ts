// How lib/oci trusts registries over HTTPS. Go programs (oc, podman, the registry itself) trust the system roots, or
// the bundle SSL_CERT_FILE names instead of them; Node trusts its built-in roots plus NODE_EXTRA_CA_CERTS. So that one
// setting (`ocp-e2e cluster up --env-out` writes SSL_CERT_FILE) serves oc and this project alike, our clients follow
// Go's rule, and take further CAs explicitly (the reference cluster's own CA, known in-process).
import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { Agent, fetch as undiciFetch } from 'undici';

export type Fetch = typeof globalThis.fetch;

function readPems(file: string | undefined): string[] {
  if (!file) return [];
  try {
    return [readFileSync(file, 'utf8')];
  } catch {
    return []; // an unreadable bundle trusts nothing extra, as in Go; the TLS error then names the registry
  }
}

/** The trust anchors a Go client would use in this environment (SSL_CERT_FILE replaces the system roots). */
export function trustedRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const bundle = readPems(env.SSL_CERT_FILE);
  return [...(bundle.length ? bundle : rootCertificates), ...readPems(env.NODE_EXTRA_CA_CERTS)];
}

const agents = new Map<string, Agent>();

/**
 * A fetch that trusts `trustedRoots(env)` and `extraCas`. Without SSL_CERT_FILE or extra CAs it is Node's own fetch
 * (whose trust already matches). Agents are shared per trust set, so connections are reused across clients.
 */
export function fetchTrusting(extraCas: string[] = [], env: NodeJS.ProcessEnv = process.env): Fetch {
  if (!extraCas.length && !env.SSL_CERT_FILE) return globalThis.fetch;
  const ca = [...trustedRoots(env), ...extraCas];
  const key = ca.join('\n');
  let agent = agents.get(key);
  if (!agent) {
    // one secure context per trust set: given only `ca`, every new connection parses the whole bundle again (some
    // 140 roots), which was most of the CPU of a node's image pull on the reference (bench/RESULTS.md)
    agent = new Agent({ connect: { secureContext: secureContextTrusting(extraCas, env) } });
    agents.set(key, agent);
  }
  const dispatcher = agent;
  return ((input: string | URL, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher } as Parameters<typeof undiciFetch>[1])) as unknown as Fetch;
}

/**
 * A secure context trusting `trustedRoots(env)` and `extraCas`. Without SSL_CERT_FILE the roots are Node's own, which
 * the process parsed once and shares: a context that starts from them and adds the few extra CAs costs about a
 * millisecond, where the same roots passed as `ca` are parsed again, 30-70 ms on this machine, at every reference
 * cluster's start (each has its own CA, so its own trust set).
 */
function secureContextTrusting(extraCas: string[], env: NodeJS.ProcessEnv): SecureContext {
  if (env.SSL_CERT_FILE) return createSecureContext({ ca: [...trustedRoots(env), ...extraCas] });
  const context = createSecureContext();
  for (const pem of [...readPems(env.NODE_EXTRA_CA_CERTS), ...extraCas]) (context.context as { addCACert(pem: string): void }).addCACert(pem);
  return context;
}

/** The error code (or message) at the bottom of a failed fetch. */
export function fetchFailureCode(error: unknown): string {
  let e = error as { cause?: unknown; code?: string; message?: string } | undefined;
  for (let i = 0; i < 5 && e?.cause; i++) e = e.cause as typeof e;
  return e?.code ?? e?.message ?? String(error);
}

/** The server answered a TLS handshake in plain HTTP (Go says "server gave HTTP response to HTTPS client"). */
export function isPlainHttpAnswer(error: unknown): boolean {
  return /WRONG_VERSION_NUMBER|wrong version number|packet length too long|http request/i.test(fetchFailureCode(error));
}

/** The server's certificate is not trusted (unknown CA, self-signed, wrong host). */
export function isCertificateProblem(error: unknown): boolean {
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS_CERT_ALTNAME_INVALID|unable to get local issuer/i.test(fetchFailureCode(error));
}
