// Pulls an image into the engine (by tag or digest), with the credentials for its registry, as a node would.
import { RegistryCredentials, type RegistryAuth } from './credentials.js';
import type { Engine } from './engine.js';
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
  try {
    const stream = (await engine.pull(image, {
      authconfig: auth ? { ...auth, serveraddress: ref.registry } : undefined,
    })) as unknown as NodeJS.ReadableStream;
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
