/**
 * The checkout a compiled tree was built from. scripts/build.sh publishes each build as `<checkout>/.build/tree-<stamp>`
 * with copies of the files the code reads at run time; paths shown to a user (a default file in a message, a cache)
 * should name the checkout's file, which is the one the user edits, not the copy inside the tree. An installed tree
 * (the image) or the sources under tsx have no checkout above them and keep their own root.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export function sourceCheckout(root: string): string {
  const checkout = resolve(root, '..', '..');
  const inBuildFolder = basename(dirname(root)) === '.build' && existsSync(join(checkout, 'bin', 'ocp-e2e.ts'));
  return inBuildFolder ? checkout : root;
}
