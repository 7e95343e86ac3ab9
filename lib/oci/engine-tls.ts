// The TLS setting each engine needs to reach a registry. dockerd treats registries on loopback as insecure (it tries
// HTTPS without verification, then plain HTTP), so it reaches both kinds of local registry with no setting. Podman
// verifies every registry and never falls back to HTTP unless told `tlsVerify=false`; a registry with a private CA
// is trusted through certs.d (see registry-trust.ts). So the one case that needs a setting is podman and a loopback
// registry that speaks plain HTTP; no other registry is ever spoken to without verification.
import { connect } from 'node:tls';
import type { Engine } from './engine.js';
import { identifyEngine } from './engine.js';
import { isLoopbackRegistry, parseImageRef } from './image-ref.js';

const plainHttp = new Map<string, Promise<boolean>>();

/**
 * Whether a loopback registry answers a TLS handshake in plain HTTP. The probe only learns the protocol (no
 * certificate is trusted by it, no request is sent); non-loopback registries are never probed and count as TLS.
 */
export function speaksPlainHttp(registry: string): Promise<boolean> {
  if (!isLoopbackRegistry(registry)) return Promise.resolve(false);
  let known = plainHttp.get(registry);
  if (!known) {
    const [host, port] = [registry.replace(/:\d+$/, '').replace(/^\[|\]$/g, ''), Number(/:(\d+)$/.exec(registry)?.[1] ?? 443)];
    known = new Promise<boolean>((resolve) => {
      const socket = connect({ host: host === 'localhost' ? '127.0.0.1' : host, port, rejectUnauthorized: false, timeout: 3000 });
      const done = (answer: boolean): void => {
        socket.destroy();
        resolve(answer);
      };
      socket.once('secureConnect', () => done(false));
      socket.once('timeout', () => done(false));
      socket.once('error', (error: NodeJS.ErrnoException) => done(/WRONG_VERSION_NUMBER|wrong version number|packet length/i.test(`${error.code} ${error.message}`)));
    });
    // a registry restarted on the same port may change protocol: remember the answer only briefly
    plainHttp.set(registry, known);
    setTimeout(() => plainHttp.delete(registry), 10_000).unref();
  }
  return known;
}

/** The registries named by image references among `values` (build arguments, tags); other strings are ignored. */
export function registriesIn(values: string[]): string[] {
  const out = new Set<string>();
  for (const value of values) {
    try {
      const ref = parseImageRef(value);
      if (ref.registry !== 'docker.io' || value.startsWith('docker.io/')) out.add(ref.registry);
    } catch {
      // not an image reference
    }
  }
  return [...out];
}

/**
 * Extra query parameters for an engine call (build, push) that reaches `registries`: `{ tlsVerify: false }` for
 * podman when every one of them is a loopback registry speaking plain HTTP, else nothing.
 */
export async function engineTlsQuery(engine: Engine, registries: string[]): Promise<{ tlsVerify?: boolean }> {
  if (!registries.length) return {};
  if ((await identifyEngine(engine)).kind !== 'podman') return {};
  const plain = await Promise.all(registries.map((r) => speaksPlainHttp(r)));
  return plain.every(Boolean) ? { tlsVerify: false } : {};
}
