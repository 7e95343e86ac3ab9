/**
 * `--image-repo`, checked before any spec prepares: a repository (no tag, no digest) that the credentials of
 * `--pull-secret` may push to. The check starts a blob upload and cancels it: the registry is asked, nothing is written.
 */
import { parseImageRef } from '../../lib/oci/image-ref.js';
import type { RegistryClient } from '../../lib/oci/image-files.js';
import { BadInputError } from './bad-input.js';

/** The syntax alone: no network. */
export function checkRepositorySyntax(repository: string): void {
  let ref;
  try {
    ref = parseImageRef(repository);
  } catch (error) {
    throw new BadInputError(`--image-repo ${repository} is not a repository: ${(error as Error).message}`);
  }
  if (ref.tag || ref.digest) throw new BadInputError(`--image-repo ${repository} names a tag or digest: give the repository alone (registry/name)`);
}

export async function checkImageRepo(registry: RegistryClient, repository: string): Promise<void> {
  checkRepositorySyntax(repository);
  try {
    await registry.checkPushAccess(repository);
  } catch (error) {
    throw new BadInputError(`--image-repo ${repository}: cannot push there: ${(error as Error).message}`, { cause: error });
  }
}
