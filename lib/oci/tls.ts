// How lib/oci trusts registries over HTTPS. Go programs (oc, podman, the registry itself) trust the system roots, or
// the bundle SSL_CERT_FILE names instead of them; Node trusts its built-in roots plus NODE_EXTRA_CA_CERTS. So that one
// setting (`ocp-e2e cluster up --env-out` writes SSL_CERT_FILE) serves oc and this project alike, our clients follow
// Go's rule, and take further CAs explicitly (the reference cluster's own CA, known in-process).
import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import type { Agent } from 'undici';
import { isLoopbackRegistry } from './image-ref.js';

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
 * (whose trust already matches). Agents are shared per trust set, so connections are reused across clients. The trust
 * is read from `env` now; undici and the secure context are made at the first request: a spec process makes a registry
 * client whether or not its spec reads a registry, and loading undici and parsing a CA bundle cost it ~50 ms of CPU.
 */
export function fetchTrusting(extraCas: string[] = [], env: NodeJS.ProcessEnv = process.env): Fetch {
  if (!extraCas.length && !env.SSL_CERT_FILE) return globalThis.fetch;
  const trust = trustOf(extraCas, env);
  const key = trust.ca.join('\n');
  return (async (input: string | URL, init?: RequestInit) => {
    const undici = await import('undici');
    // A loopback address never has a certificate of a public root (CAs do not certify 127.0.0.1 or localhost): with
    // Node's roots, only the added CAs can vouch for it, and a context of those alone spares parsing the ~140 roots
    // (~35 ms, the reference's nodes pulling from its registry). With SSL_CERT_FILE, whose bundle may hold the CA, all.
    const local = trust.added !== undefined && isLoopbackUrl(input);
    const agentKey = local ? `loopback\n${trust.added!.join('\n')}` : key;
    let agent = agents.get(agentKey);
    if (!agent) {
      // one secure context per trust set: given only `ca`, every new connection parses the whole bundle again (some
      // 140 roots), which was most of the CPU of a node's image pull on the reference (bench/RESULTS.md)
      const secureContext = local ? createSecureContext({ ca: trust.added! }) : secureContextTrusting(trust);
      agent = new undici.Agent({ connect: { secureContext } });
      agents.set(agentKey, agent);
    }
    return undici.fetch(input, { ...(init as object), dispatcher: agent } as Parameters<typeof undici.fetch>[1]);
  }) as unknown as Fetch;
}

function isLoopbackUrl(input: string | URL): boolean {
  try {
    return isLoopbackRegistry(new URL(String(input)).host);
  } catch {
    return false;
  }
}

/** What a client trusts, read from the environment when it is made: every CA (PEM), and whether they replace Node's roots. */
interface Trust {
  /** SSL_CERT_FILE's bundle (or Node's roots without it), NODE_EXTRA_CA_CERTS's and the extra CAs: the trust set. */
  ca: string[];
  /** Without SSL_CERT_FILE: the CAs added to Node's own roots (NODE_EXTRA_CA_CERTS's and the extra ones). */
  added?: string[];
}

function trustOf(extraCas: string[], env: NodeJS.ProcessEnv): Trust {
  const ca = [...trustedRoots(env), ...extraCas];
  return env.SSL_CERT_FILE ? { ca } : { ca, added: [...readPems(env.NODE_EXTRA_CA_CERTS), ...extraCas] };
}

/**
 * A secure context trusting `trust`. Without SSL_CERT_FILE the roots are Node's own, which the process parsed once and
 * shares: a context that starts from them and adds the few extra CAs costs about a millisecond, where the same roots
 * passed as `ca` are parsed again, 30-70 ms on this machine, at every reference cluster's start (each has its own CA,
 * so its own trust set).
 */
function secureContextTrusting(trust: Trust): SecureContext {
  if (!trust.added) return createSecureContext({ ca: trust.ca });
  const context = createSecureContext();
  for (const pem of trust.added) (context.context as { addCACert(pem: string): void }).addCACert(pem);
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
