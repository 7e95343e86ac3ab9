/**
 * The layered image's inputs, checked before any cluster time: the Containerfile (--containerfile, else the suite's
 * own) can be read, is built FROM ${BASE_IMAGE}, declares every --build-arg, and its check labels can be checked.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkLayeredContainerfile, DEFAULT_CONTAINERFILE, describeContainerfile, parseBuildArgs } from '../containerfile.js';
import { declaredChecks } from '../layered-checks.js';
import { BadInputError } from './bad-input.js';

export function checkLayeredImageInputs(containerfile: string | undefined, buildArg: string[] | undefined): void {
  const path = containerfile === undefined ? DEFAULT_CONTAINERFILE : resolve(containerfile);
  const flag = containerfile === undefined ? 'the default Containerfile' : `--containerfile ${containerfile}`;
  let text: string;
  try {
    if (statSync(path).isDirectory()) throw new BadInputError(`${flag}: is a folder; give the Containerfile itself (its folder is the build context)`);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof BadInputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new BadInputError(code === 'ENOENT' ? `${flag}: no such file` : `${flag}: cannot be read (${code ?? (error as Error).message})`);
  }
  try {
    const buildArgs = parseBuildArgs(buildArg);
    const description = describeContainerfile(text, path, buildArgs);
    checkLayeredContainerfile(description, buildArgs);
    declaredChecks(description.labels, path);
  } catch (error) {
    // ContainerfileError and the check labels' errors: each names the file and what in it cannot work
    throw new BadInputError((error as Error).message);
  }
}
