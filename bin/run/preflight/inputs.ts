/** What the user gave, checked for form before anything else happens: no network, no cluster. */
import { BadInputError } from '../../../helpers/preflight/bad-input.js';
import { checkRepositorySyntax } from '../../../helpers/preflight/image-repo.js';
import { checkPullspecSyntax } from '../../../helpers/preflight/release-image.js';
import { UsageError } from '../usage-error.js';

/** The options whose form is checked: `--to-image` and `--image-repo`. */
export interface SyntaxCheckedInputs {
  toImage?: string;
  imageRepo?: string;
}

export function checkInputSyntax(options: SyntaxCheckedInputs): void {
  try {
    if (options.toImage !== undefined) checkPullspecSyntax('--to-image', options.toImage);
    if (options.imageRepo !== undefined) checkRepositorySyntax(options.imageRepo);
  } catch (error) {
    if (error instanceof BadInputError) throw new UsageError(error.message);
    throw error;
  }
}
