/**
 * What a Containerfile declares, read without building it: its ARGs, its stages and where the image it makes starts,
 * and the labels of that image (expanded with the build arguments, as the builder would). The suite reads a user's
 * layered-image Containerfile with it before any cluster time is spent, and the checks the labels ask for
 * (layered-checks.ts) from the same reading. Only the syntax both builders share is read: instructions, `\`
 * continuations, comments, the `escape` directive, and heredocs, which are skipped.
 */

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceCheckout } from '../lib/files/source-checkout.js';
import { parseImageRef } from '../lib/oci/image-ref.js';

/**
 * The suite's own layered image (images/layered-os/Containerfile); its folder is the build context. A compiled run
 * from a checkout names the checkout's file, the one a user reads and edits.
 */
export const DEFAULT_CONTAINERFILE = join(sourceCheckout(fileURLToPath(new URL('..', import.meta.url))), 'images', 'layered-os', 'Containerfile');

/** Said of a Containerfile that cannot serve as a layered image; the message names the file. */
export class ContainerfileError extends Error {}

/** The build arguments the suite sets itself: the release's images. */
export const SUITE_BUILD_ARGS = { baseImage: 'BASE_IMAGE', extensionsImage: 'EXTENSIONS_IMAGE' } as const;

/** Arguments every builder accepts without an ARG (Docker's predefined proxy arguments). */
const PREDEFINED_ARGS = new Set(['HTTP_PROXY', 'HTTPS_PROXY', 'FTP_PROXY', 'NO_PROXY', 'ALL_PROXY'].flatMap((a) => [a, a.toLowerCase()]));

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

interface Stage {
  from: string;
  name?: string;
  line: number;
  /** ARGs declared in the stage, with their defaults. */
  args: Map<string, string | undefined>;
  /** LABEL pairs as written (unexpanded), in order. */
  labels: Array<[string, string]>;
}

export interface ContainerfileDescription {
  source: string;
  /** ARGs before the first FROM (usable in FROM lines), with their defaults. */
  globalArgs: Map<string, string | undefined>;
  /** Every ARG name declared anywhere. */
  declaredArgs: Set<string>;
  /** The image reference (unexpanded) the built image starts from: the root of the last stage's chain, and its line. */
  base: { from: string; line: number };
  /** The built image's labels, as the builder would expand them with `buildArgs`. */
  labels: Record<string, string>;
}

/** Splits the text into instructions: continuations joined, comments and heredoc bodies left out. */
function instructions(text: string): Instruction[] {
  const lines = text.split(/\r?\n/);
  const escapeDirective = /^#\s*escape\s*=\s*(\S)\s*$/i.exec(lines[0] ?? '');
  const escape = escapeDirective?.[1] ?? '\\';
  const out: Instruction[] = [];
  let current: { text: string; line: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (/^\s*#/.test(raw)) continue; // comments, also inside a continued instruction
    if (!current && raw.trim() === '') continue;
    const continued = raw.trimEnd().endsWith(escape);
    const part = continued ? raw.trimEnd().slice(0, -1) : raw;
    current = current ? { text: `${current.text} ${part.trim()}`, line: current.line } : { text: part.trim(), line: i + 1 };
    if (continued) continue;
    const match = /^(\S+)\s*(.*)$/.exec(current.text);
    if (match) out.push({ keyword: match[1]!.toUpperCase(), args: match[2]!, line: current.line });
    // a heredoc's body (`RUN <<EOF`) is data, not instructions
    for (const [, word] of current.text.matchAll(/<<-?["']?([A-Za-z_][A-Za-z0-9_]*)["']?/g)) {
      while (i + 1 < lines.length && lines[i + 1]!.trim() !== word) i++;
      i++;
    }
    current = undefined;
  }
  if (current) out.push({ keyword: current.text.split(/\s/)[0]!.toUpperCase(), args: current.text.replace(/^\S+\s*/, ''), line: current.line });
  return out;
}

/** Words of an instruction's arguments: whitespace-separated, with '…' and "…" quoting and backslash escapes. */
function words(text: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const end = text.indexOf(c, i + 1);
      if (end < 0) throw new Error(`an unterminated ${c} quote in ${JSON.stringify(text)}`);
      const inner = text.slice(i + 1, end);
      word = (word ?? '') + (c === '"' ? inner.replace(/\\(["\\$])/g, '$1') : inner);
      i = end;
    } else if (c === '\\' && i + 1 < text.length) word = (word ?? '') + text[++i];
    else if (/\s/.test(c)) {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) out.push(word);
  return out;
}

/** `NAME=value` pairs of ARG and LABEL (LABEL's old `KEY value` form too). */
function pairs(keyword: string, text: string): Array<[string, string | undefined]> {
  const list = words(text);
  if (keyword === 'LABEL' && list.length >= 2 && !list[0]!.includes('=')) return [[list[0]!, list.slice(1).join(' ')]];
  return list.map((w) => {
    const eq = w.indexOf('=');
    return eq < 0 ? [w, undefined] : [w.slice(0, eq), w.slice(eq + 1)];
  });
}

/**
 * Expands `$NAME`, `${NAME}`, `${NAME:-word}` and `${NAME:+word}` as the builder does; a name the scope does not
 * declare is refused rather than silently made empty.
 */
function expand(value: string, scope: Map<string, string | undefined>, what: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([-+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, braced: string | undefined, op: string | undefined, word: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare)!;
    if (!scope.has(name)) throw new Error(`${what} uses $${name}, which the stage does not declare with ARG`);
    const set = scope.get(name) ?? '';
    if (op === '-') return set || word!;
    if (op === '+') return set ? word! : '';
    return set;
  });
}

/** Reads a Containerfile's text. `buildArgs` are the values given on the command line (they expand the labels). */
export function describeContainerfile(text: string, source: string, buildArgs: Record<string, string> = {}): ContainerfileDescription {
  const fail = (message: string): never => {
    throw new ContainerfileError(`${source}: ${message}`);
  };
  const globalArgs = new Map<string, string | undefined>();
  const declaredArgs = new Set<string>();
  const stages: Stage[] = [];
  for (const ins of instructions(text)) {
    try {
      if (ins.keyword === 'FROM') {
        const list = words(ins.args).filter((w) => !w.startsWith('--'));
        if (!list[0]) fail(`line ${ins.line}: FROM names no image`);
        const name = list[1]?.toUpperCase() === 'AS' ? list[2]?.toLowerCase() : undefined;
        stages.push({ from: list[0]!, name, line: ins.line, args: new Map(), labels: [] });
      } else if (ins.keyword === 'ARG') {
        for (const [name, value] of pairs('ARG', ins.args)) {
          declaredArgs.add(name);
          const stage = stages.at(-1);
          if (stage) stage.args.set(name, value);
          else globalArgs.set(name, value);
        }
      } else if (ins.keyword === 'LABEL') {
        const stage = stages.at(-1) ?? fail(`line ${ins.line}: LABEL before the first FROM`);
        for (const [key, value] of pairs('LABEL', ins.args)) stage.labels.push([key, value ?? '']);
      }
    } catch (error) {
      if (error instanceof ContainerfileError) throw error;
      fail(`line ${ins.line}: ${(error as Error).message}`);
    }
  }
  if (!stages.length) fail('it has no FROM instruction');
  // the built image is the last stage, grown from the stage its FROM names, and so on down to an image reference
  const chain: Stage[] = [stages.at(-1)!];
  for (;;) {
    const from = chain[0]!.from.toLowerCase();
    const parent = stages.slice(0, stages.indexOf(chain[0]!)).reverse().find((s) => s.name === from);
    if (!parent) break;
    chain.unshift(parent);
  }
  const labels: Record<string, string> = {};
  for (const stage of chain) {
    // a stage's ARG without a value takes the global default; a given build argument wins over both
    const scope = new Map<string, string | undefined>();
    for (const [name, value] of stage.args) scope.set(name, buildArgs[name] ?? value ?? globalArgs.get(name));
    for (const [key, value] of stage.labels) {
      try {
        labels[key] = expand(value, scope, `LABEL ${key}`);
      } catch (error) {
        fail(`line ${stage.line}'s stage: ${(error as Error).message}`);
      }
    }
  }
  return { source, globalArgs, declaredArgs, base: { from: chain[0]!.from, line: chain[0]!.line }, labels };
}

/**
 * Refuses what cannot be a layered image of the release: an image not built FROM ${BASE_IMAGE} (declared before the
 * first FROM, so the suite's value reaches it), and build arguments the file does not declare or that the suite sets.
 */
export function checkLayeredContainerfile(description: ContainerfileDescription, buildArgs: Record<string, string>): void {
  const { source, base } = description;
  const baseArg = SUITE_BUILD_ARGS.baseImage;
  if (base.from !== `\${${baseArg}}` && base.from !== `$${baseArg}`) {
    throw new ContainerfileError(
      `${source}: the image must be built FROM \${${baseArg}}, the release's base OS image that the suite passes; its last stage starts (line ${base.line}) FROM ${base.from}`,
    );
  }
  if (!description.globalArgs.has(baseArg)) {
    throw new ContainerfileError(`${source}: declare ARG ${baseArg} before the first FROM, or the suite's value of it cannot reach FROM \${${baseArg}}`);
  }
  for (const name of Object.keys(buildArgs)) {
    // BASE_IMAGE may name a mirror of the release's base OS image (a disconnected bastion's): the build checks its digest
    if (name === baseArg) {
      try {
        parseImageRef(buildArgs[name]!);
      } catch (error) {
        throw new ContainerfileError(`--build-arg ${name}=${buildArgs[name]}: not an image pullspec (${(error as Error).message}); give the release's base OS image or a mirror of it`);
      }
      continue;
    }
    if (Object.values(SUITE_BUILD_ARGS).includes(name as never)) {
      throw new ContainerfileError(`--build-arg ${name}: the suite sets ${name} to the release's image itself; leave it out`);
    }
    if (!description.declaredArgs.has(name) && !PREDEFINED_ARGS.has(name)) {
      const declared = [...description.declaredArgs].filter((a) => !Object.values(SUITE_BUILD_ARGS).includes(a as never));
      throw new ContainerfileError(`--build-arg ${name}: ${source} declares no ARG ${name} (it declares ${declared.length ? declared.join(', ') : 'none besides the suite\'s'})`);
    }
  }
}

/** `--build-arg K=V` values as a record; refuses a value without `=`, a name that is not one, and a name given twice. */
export function parseBuildArgs(given: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const text of given ?? []) {
    const eq = text.indexOf('=');
    const name = eq < 0 ? text : text.slice(0, eq);
    if (eq < 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new ContainerfileError(`--build-arg ${text}: give NAME=VALUE, NAME an ARG of the Containerfile`);
    if (name in out) throw new ContainerfileError(`--build-arg ${name} is given twice`);
    out[name] = text.slice(eq + 1);
  }
  return out;
}
