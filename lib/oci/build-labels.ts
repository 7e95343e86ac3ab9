// How a build's labels reach the image. dockerd's classic builder turns the build API's `labels` into one LABEL step
// per label, appended to the Containerfile (sorted by name), and each step commits an intermediate image: the
// suite's three labels (case id, run id, expiry) took spec 1's build from 0.6-0.8 s to 2.2-2.7 s on this machine
// (bench/RESULTS.md). So for dockerd the labels go into the build as one LABEL instruction at the end of a copy of the
// Containerfile, sent under a name of its own that `.dockerignore` lists, as the docker CLI sends a Containerfile
// from outside the context: dockerd reads it and then drops it from the context, so `COPY .` never sees it and the
// user's Containerfile in the context stays as it was. Podman applies the API's labels without extra steps, and a
// build with a target stage must label that stage, not the last: both keep the API's `labels`.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export interface LabelPlan {
  /** Files to add to (or replace in) the context. */
  files: Record<string, string>;
  /** The Containerfile the engine is to read. */
  containerfile: string;
}

/** `"key"="value"` with the escapes a Containerfile needs: quotes and backslashes, and `$`, which LABEL expands. */
function labelPair(key: string, value: string): string {
  const quote = (s: string) => `"${s.replace(/[\\"$]/g, (c) => `\\${c}`)}"`;
  return `${quote(key)}=${quote(value)}`;
}

/** Labels a LABEL line can carry as given: one line each, no line breaks. */
function fitsOneLine(labels: Record<string, string>): boolean {
  return Object.entries(labels).every(([k, v]) => k !== '' && !/[\r\n]/.test(k + v));
}

/** A file of the build context as the build will send it: from `files` when given there, else from `contextDir`. */
async function contextFile(opts: { contextDir?: string; files?: Record<string, string | Buffer> }, name: string): Promise<string | undefined> {
  const given = opts.files?.[name];
  if (given !== undefined) return given.toString();
  return opts.contextDir ? readFile(path.join(opts.contextDir, name), 'utf8').catch(() => undefined) : undefined;
}

/**
 * The files and Containerfile that put `labels` in the image as one LABEL instruction, or undefined when the API's
 * labels must be used (no labels, a target stage, a value a LABEL line cannot carry, a Containerfile whose last line
 * continues onto the next).
 */
export async function labelsAsInstruction(opts: {
  labels?: Record<string, string>;
  target?: string;
  contextDir?: string;
  files?: Record<string, string | Buffer>;
  containerfile?: string;
}): Promise<LabelPlan | undefined> {
  const labels = opts.labels ?? {};
  if (!Object.keys(labels).length || opts.target || !fitsOneLine(labels)) return undefined;
  const text = await contextFile(opts, opts.containerfile ?? 'Containerfile');
  // unreadable: the engine's own error about the Containerfile is the one to show
  if (text === undefined || /\\\s*$/.test(text)) return undefined;
  const derived = `.containerfile.ocp-e2e-${randomBytes(8).toString('hex')}`;
  const ignore = await contextFile(opts, '.dockerignore');
  const line = `LABEL ${Object.keys(labels).sort().map((k) => labelPair(k, labels[k]!)).join(' ')}`;
  // dockerd drops from the context the Containerfile and .dockerignore when .dockerignore lists them: a .dockerignore
  // made here lists itself too, so the context the steps see is the one given, file for file
  const ignoreText = ignore === undefined ? `${derived}\n.dockerignore\n` : `${ignore.replace(/\s*$/, '')}\n${derived}\n`;
  return {
    containerfile: derived,
    files: { [derived]: `${text.replace(/\s*$/, '')}\n${line}\n`, '.dockerignore': ignoreText },
  };
}
