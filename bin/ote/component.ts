/**
 * Who we are to openshift-tests: the component (product, type, name) and the source the suite was built from.
 *
 * The commit is `git rev-parse HEAD` of the checkout the command runs from (also when it runs the checkout's compiled
 * tree, .build/tree-*); an installed suite (an image, no .git) reads it from build-info.json next to package.json,
 * which images/ocp-e2e/build.sh writes:
 *   {"commit": "<sha>", "version": "<package.json version>", "buildDate": "<ISO 8601>", "gitTreeState": "clean"|"dirty",
 *    "sourceUrl": "<url>"}
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { ROOT, SOURCE_ROOT } from '../run/paths.js';
import type { Component, Source } from './types.js';

export const BUILD_INFO_FILE = join(ROOT, 'build-info.json');

/**
 * `payload` when the suite ships in a release payload, `external` otherwise (how openshift-tests learns of it:
 * the payload's registry in origin, or an ImageStreamTag). OCP_E2E_OTE_COMPONENT_TYPE says which; default external.
 */
export function component(env: NodeJS.ProcessEnv = process.env): Component {
  const type = env.OCP_E2E_OTE_COMPONENT_TYPE === 'payload' ? 'payload' : 'external';
  return { product: 'openshift', type, name: 'ocp-e2e' };
}

/** OTE's Component.Identifier(): what a test's `source` is and what suite qualifiers compare it with. */
export function identifier(c: Component): string {
  return `${c.product}:${c.type}:${c.name}`;
}

interface BuildInfo {
  commit?: string;
  buildDate?: string;
  gitTreeState?: string;
  sourceUrl?: string;
}

export async function sourceInfo(): Promise<Source> {
  const fromGit = await gitSource();
  if (fromGit) return fromGit;
  const built = await readFile(BUILD_INFO_FILE, 'utf8').then((t) => JSON.parse(t) as BuildInfo, () => ({}) as BuildInfo);
  return withUrl({ commit: built.commit ?? '', build_date: built.buildDate ?? '', git_tree_state: built.gitTreeState ?? '' }, built.sourceUrl);
}

/** The checkout's HEAD and whether the tree has changes; undefined when SOURCE_ROOT is not a git checkout (or no git). */
async function gitSource(): Promise<Source | undefined> {
  const head = await execa('git', ['rev-parse', 'HEAD'], { cwd: SOURCE_ROOT, reject: false });
  // A checkout nested in another repository must not report the outer one's commit.
  const top = await execa('git', ['rev-parse', '--show-toplevel'], { cwd: SOURCE_ROOT, reject: false });
  if (head.exitCode !== 0 || top.exitCode !== 0 || !samePath(String(top.stdout).trim(), SOURCE_ROOT)) return undefined;
  const status = await execa('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: SOURCE_ROOT, reject: false });
  const state = status.exitCode !== 0 ? '' : String(status.stdout).trim() ? 'dirty' : 'clean';
  const url = await execa('git', ['remote', 'get-url', 'origin'], { cwd: SOURCE_ROOT, reject: false });
  return withUrl({ commit: String(head.stdout).trim(), build_date: '', git_tree_state: state }, url.exitCode === 0 ? String(url.stdout).trim() : undefined);
}

/** The URL without credentials a remote may carry (https://user:token@host/...): `info` output is logged by CI. */
function withUrl(source: Source, url: string | undefined): Source {
  return url ? { ...source, source_url: url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1') } : source;
}

function samePath(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}
