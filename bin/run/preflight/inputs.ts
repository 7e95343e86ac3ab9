/** What the user gave, checked for form before anything else happens: no network, no cluster. */
import { BadInputError } from '../../../helpers/preflight/bad-input.js';
import { checkRepositorySyntax } from '../../../helpers/preflight/image-repo.js';
import { checkLayeredImageInputs } from '../../../helpers/preflight/layered-image.js';
import { checkPullspecSyntax } from '../../../helpers/preflight/release-image.js';
import { UsageError } from '../usage-error.js';

/** The options whose form is checked: `--to-image`, `--image-repo`, and the layered image's `--containerfile` and `--build-arg`. */
export interface SyntaxCheckedInputs {
  toImage?: string[];
  imageRepo?: string;
  containerfile?: string;
  buildArg?: string[];
}

export function checkInputSyntax(options: SyntaxCheckedInputs): void {
  try {
    for (const image of options.toImage ?? []) checkPullspecSyntax('--to-image', image);
    if (options.imageRepo !== undefined) checkRepositorySyntax(options.imageRepo);
    if (options.containerfile !== undefined || options.buildArg?.length) checkLayeredImageInputs(options.containerfile, options.buildArg);
  } catch (error) {
    if (error instanceof BadInputError) throw new UsageError(error.message);
    throw error;
  }
}
