/**
 * A Containerfile step written for one release: it checks the base it builds FROM is that release's (a line of its
 * /usr/lib/os-release that the next release's base does not have) and fails otherwise, as a step that relies on the
 * old release's content fails once the MCO rebuilds the image FROM the new base on an upgrade. The step is put right
 * after the fragment's `FROM configs AS final`, so the build fails there, with the release it was written for in its
 * log, before anything else of the fragment runs.
 */
import { OS_RELEASE_PATH } from '../release.js';

export interface ReleasePin {
  /** The os-release line the step looks for (the release it was written for). */
  line: string;
  /** The RUN instruction, as the build's log heads its step. */
  run: string;
}

const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The first line of the current base's os-release that the next base's lacks; throws when there is none. */
export function releaseLine(current: string, next: string, currentVersion: string, nextVersion: string): string {
  const theirs = new Set(next.split('\n').map((l) => l.trim()));
  const line = current.split('\n').map((l) => l.trim()).find((l) => l !== '' && !l.startsWith('#') && !theirs.has(l));
  if (!line) throw new Error(`the bases of ${currentVersion} and ${nextVersion} have the same ${OS_RELEASE_PATH}: no step can tell them apart`);
  return line;
}

/** The pin for `line`, written for `version`. */
export function releasePin(line: string, version: string): ReleasePin {
  const why = `ocp-e2e: this step was written for OpenShift ${version}: ${OS_RELEASE_PATH} has no line ${line}`;
  return { line, run: `RUN grep -qxF ${shQuote(line)} ${OS_RELEASE_PATH} || { echo ${shQuote(why)} >&2; exit 1; }` };
}

/** `containerfile` (a fragment starting `FROM configs AS final`) with the pin as its first step. */
export function withReleasePin(containerfile: string, pin: ReleasePin): string {
  const lines = containerfile.split('\n');
  const from = lines.findIndex((l) => /^\s*FROM\s+configs\s+AS\s+final\b/i.test(l));
  if (from < 0) throw new Error('the Containerfile has no FROM configs AS final line to put the release pin after');
  return [...lines.slice(0, from + 1), pin.run, ...lines.slice(from + 1)].join('\n');
}
