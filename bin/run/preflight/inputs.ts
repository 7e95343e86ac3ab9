/** What the user gave, checked for form before anything else happens: no network, no cluster. */
import { BadInputError } from '../../../helpers/preflight/bad-input.js';
import { checkRepositorySyntax } from '../../../helpers/preflight/image-repo.js';
import { checkPullspecSyntax } from '../../../helpers/preflight/release-image.js';
import type { RunOptions } from '../options.js';
import { UsageError } from '../usage-error.js';

export function checkInputSyntax(options: Pick<RunOptions, 'toImage' | 'imageRepo'>): void {
  try {
    if (options.toImage !== undefined) checkPullspecSyntax('--to-image', options.toImage);
    if (options.imageRepo !== undefined) checkRepositorySyntax(options.imageRepo);
  } catch (error) {
    if (error instanceof BadInputError) throw new UsageError(error.message);
    throw error;
  }
}
