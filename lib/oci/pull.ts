// Pulls an image into the engine (by tag or digest), with the credentials for its registry, as a node would.
import { RegistryCredentials, type RegistryAuth } from './credentials.js';
import type { Engine } from './engine.js';
import { engineTlsQuery } from './engine-tls.js';
import { ImageHelperError, RegistryUnreachableError } from './errors.js';
import { parseImageRef } from './image-ref.js';
import { BuildStreamParser } from './build.js';

export class ImagePullError extends ImageHelperError {
  constructor(
    readonly image: string,
    detail: string,
    readonly unauthorized: boolean,
  ) {
    super(
      `Cannot pull ${image}: ${detail}. ` +
        (unauthorized ? 'The registry wants credentials for it: add them to the pull secret / docker config.' : 'Check that the reference exists in the registry.'),
    );
  }
}

export async function pullImage(engine: Engine, image: string, opts: { auth?: RegistryCredentials | RegistryAuth } = {}): Promise<void> {
  const ref = parseImageRef(image);
  const auth = opts.auth instanceof RegistryCredentials ? opts.auth.authFor(ref.registry) : opts.auth;
  let failure: string | undefined;
  const parser = new BuildStreamParser((o) => {
    if (o.error || o.errorDetail) failure ??= o.errorDetail?.message ?? o.error;
  });
  const authconfig = auth ? { ...auth, serveraddress: ref.registry } : undefined;
  const tlsQuery = await engineTlsQuery(engine, [ref.registry]);
  try {
    // podman's Docker-compatible pull has no TLS setting; its own API (same socket) has one, for the one case that
    // needs it: a loopback registry speaking plain HTTP
    const stream = (tlsQuery.tlsVerify === false
      ? await new Promise((resolve, reject) =>
          engine.modem.dial(
            { path: '/v4.0.0/libpod/images/pull?', method: 'POST', options: { reference: image, tlsVerify: false }, authconfig, isStream: true, statusCodes: { 200: true, 400: 'bad parameter', 500: 'server error' } },
            (err: unknown, data: unknown) => (err ? reject(err) : resolve(data)),
          ))
      : await engine.pull(image, { authconfig })) as unknown as NodeJS.ReadableStream;
    await new Promise<void>((resolve, reject) => {
      stream.on('data', (c: Buffer) => parser.push(c));
      stream.on('end', () => {
        parser.end();
        resolve();
      });
      stream.on('error', reject);
    });
  } catch (err) {
    failure ??= (err as { json?: { message?: string } }).json?.message ?? (err as Error).message;
  }
  if (!failure) return;
  if (/connection refused|no such host|dial tcp/i.test(failure)) throw new RegistryUnreachableError(ref.registry, failure);
  throw new ImagePullError(image, failure, /unauthorized|authentication required|denied|no basic auth/i.test(failure));
}
