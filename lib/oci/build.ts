// Image builds through the engine's API (dockerode): the context is tarred with `tar`, every object of the build
// stream is parsed, and failures become typed errors that name the failing step and show its last output lines.
import { cp, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import path from 'node:path';
import { create as createTar } from 'tar';
import type { RegistryCredentials } from './credentials.js';
import { identifyEngine, type Engine } from './engine.js';
import { labelsAsInstruction } from './build-labels.js';
import { engineTlsQuery, registriesIn } from './engine-tls.js';
import {
  BaseImageUnavailableError,
  BuildStepFailedError,
  ContainerfileSyntaxError,
  ImageBuildError,
  ImageBuildTimeoutError,
} from './errors.js';

export interface BuildOptions {
  /** Folder sent as the build context. */
  contextDir?: string;
  /** Files added to (or replacing those of) the context: path inside the context → content. */
  files?: Record<string, string | Buffer>;
  /** Path of the Containerfile inside the context; default `Containerfile`. */
  containerfile?: string;
  buildArgs?: Record<string, string>;
  labels?: Record<string, string>;
  /** Full tag to give the image, e.g. `127.0.0.1:5000/ocp-e2e/layered:run1-54183`. */
  tag: string;
  /** Multi-stage target. */
  target?: string;
  /** Default 5 minutes. */
  timeoutMs?: number;
  /** Credentials for pulling private base images (sent as X-Registry-Config, never logged). */
  registryConfig?: RegistryCredentials;
  /** Receives each output line as it arrives. */
  onOutput?: (line: string) => void;
  /** Do not reuse cached layers. */
  noCache?: boolean;
  /** Pull the base image even when the engine has it (podman also reuses a local image of the same digest under another name). */
  pull?: boolean;
  /**
   * `linux/<arch>`: the platform to build for (docker/podman `--platform`): the base is taken for it and RUN steps run
   * as it (emulated by qemu-user-static through binfmt when it is not the host's). Default: the engine's own.
   */
  platform?: string;
}

export interface BuildResult {
  tag: string;
  /** Engine image id `sha256:…` (not a registry digest). */
  imageId: string;
  durationMs: number;
  /** Every output line of the build. */
  output: string[];
}

interface BuildStreamObject {
  stream?: string;
  status?: string;
  progress?: string;
  aux?: { ID?: string };
  error?: string;
  errorDetail?: { code?: number; message?: string };
}

const LAST_LINES = 15;
const ANSI_ESCAPE = /\u001b\[[0-9;]*m/g;

/** Expands `$NAME` and `${NAME}` of a step's text with the build arguments, as the builder does. */
function expandArgs(text: string, buildArgs: Record<string, string>): string {
  return text.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, braced: string | undefined, bare: string | undefined) => buildArgs[(braced ?? bare)!] ?? whole);
}

/** Turns an `errorDetail` of the build stream (or an error of the build call) into the matching error type. */
export function classifyBuildError(
  rawMessage: string,
  step: string | undefined,
  lastLines: string[],
  buildArgs: Record<string, string> = {},
): ImageBuildError {
  // docker-modem prefixes errors of the HTTP call itself: "(HTTP code 400) unexpected - <engine message>".
  let message = rawMessage.replace(/^\(HTTP code \d+\) [\w ]+ - /, '').trim();
  // podman (buildah) names an unknown instruction and then dumps its Go struct: keep the words, drop the dump
  const podmanUnknown = /Unknown instruction: "?(\w+)"?/.exec(message);
  if (podmanUnknown) message = `unknown instruction: ${podmanUnknown[1]} (podman does not say on which line)`;
  // dockerd: "returned a non-zero code: N"; podman: "while running runtime: exit status N"
  const nonZero = /returned a non-zero code: (\d+)|while running runtime: exit status (\d+)/.exec(message);
  if (nonZero) {
    const code = nonZero[1] ?? nonZero[2];
    return new BuildStepFailedError(
      `A build step failed with exit code ${code}: ${message}. Its output is below; fix the command or the packages it asks for.`,
      step,
      lastLines,
      Number(code),
    );
  }
  if (/dockerfile parse error|unknown instruction|unknown flag|parse error|syntax error|FROM requires|requires (at least|exactly)/i.test(message)) {
    return new ContainerfileSyntaxError(`The Containerfile has a syntax error: ${message}`, step, lastLines);
  }
  const fromStep = !step || /^FROM\b/i.test(step.replace(/^Step \d+\/\d+ : /, ''));
  const pullProblem = /pull access denied|manifest unknown|manifest for .* not found|not found|repository does not exist|unauthorized|authentication required|no basic auth credentials|denied|connection refused|no such host|invalid reference format/i;
  if (fromStep && pullProblem.test(message)) {
    const unauthorized = /unauthorized|authentication required|no basic auth credentials|denied/i.test(message);
    const fromArg = /^Step \d+\/\d+ : FROM\s+(\S+)/i.exec(step ?? '')?.[1];
    const base = fromArg ? expandArgs(fromArg, buildArgs) : /(?:pull access denied for|manifest for) ([^\s,"]+)/.exec(message)?.[1];
    return new BaseImageUnavailableError(
      `The base image ${base ? `${base} ` : ''}could not be pulled: ${message}. ` +
        (unauthorized
          ? 'The registry wants credentials: give a pull secret / docker config with an entry for it (registryConfig).'
          : 'Check the FROM reference (registry, repository, tag or digest) and that the registry is reachable.'),
      step,
      lastLines,
      base,
      unauthorized,
    );
  }
  return new ImageBuildError(`The image build failed: ${message}`, step, lastLines);
}

/**
 * A step heading in the build output, in dockerd's form: `Step 2/3 : RUN …` (dockerd) and `STEP 2/3: RUN …`
 * (podman) both give `Step 2/3 : RUN …`, so errors name steps the same way on either engine.
 */
export function stepHeading(line: string): string | undefined {
  const m = /^(?:Step|STEP) (\d+\/\d+) ?: (.*)$/.exec(line);
  return m ? `Step ${m[1]} : ${m[2]}` : undefined;
}

/** Parses a build stream, chunk by chunk, calling `onObject` for every complete JSON object. */
export class BuildStreamParser {
  private buffer = '';
  // A chunk may end inside a multi-byte character; the decoder keeps the partial bytes for the next chunk.
  private readonly decoder = new StringDecoder('utf8');
  constructor(private readonly onObject: (o: BuildStreamObject) => void) {}

  push(chunk: Buffer | string): void {
    this.buffer += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline).trim();
      this.buffer = this.buffer.slice(newline + 1);
      if (line) this.parseLine(line);
    }
  }

  end(): void {
    const rest = (this.buffer + this.decoder.end()).trim();
    this.buffer = '';
    if (rest) this.parseLine(rest);
  }

  private parseLine(line: string): void {
    // The engine may put several objects on one line ("}{"); split them.
    for (const piece of line.replace(/}\s*{/g, '}\n{').split('\n')) {
      try {
        this.onObject(JSON.parse(piece) as BuildStreamObject);
      } catch {
        this.onObject({ stream: piece + '\n' });
      }
    }
  }
}

async function contextTar(
  opts: BuildOptions,
  onReadError: (error: Error) => void,
): Promise<{ stream: NodeJS.ReadableStream; cleanup: () => Promise<void> }> {
  if (!opts.contextDir && !opts.files) throw new ImageBuildError('buildImage needs contextDir or files', undefined, []);
  let dir = opts.contextDir ? path.resolve(opts.contextDir) : '';
  let cleanup = async () => undefined as void;
  if (opts.files) {
    const tmp = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-context-'));
    cleanup = async () => rm(tmp, { recursive: true, force: true });
    if (opts.contextDir) await cp(dir, tmp, { recursive: true, verbatimSymlinks: true });
    for (const [name, content] of Object.entries(opts.files)) {
      const target = path.join(tmp, name);
      if (!target.startsWith(tmp + path.sep)) throw new ImageBuildError(`Context file ${name} escapes the context`, undefined, []);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, typeof content === 'string' ? content : new Uint8Array(content), { mode: 0o644 });
    }
    dir = tmp;
  }
  // portable + fixed mtimes: the same context always makes the same tar, so the engine's layer cache hits.
  const stream = createTar({ cwd: dir, portable: true, mtime: new Date(0) }, ['.']);
  // The engine may answer (a failed step, a refused request) before it read the whole context; the tar then still
  // walks the folder that cleanup removes. It is stopped first, and an error it meets after the answer is no one's.
  let done = false;
  stream.on('error', (error: unknown) => {
    if (!done) onReadError(error instanceof Error ? error : new Error(String(error)));
  });
  const removeFolder = cleanup;
  return {
    stream: stream as unknown as NodeJS.ReadableStream,
    cleanup: async () => {
      done = true;
      stream.destroy();
      await removeFolder();
    },
  };
}

/**
 * What a build stream said so far: every line, the step running and its own output (that is what explains a
 * failure), the image id once the engine reports it, and the first error.
 */
class BuildProgress {
  readonly output: string[] = [];
  step: string | undefined;
  private stepOutput: string[] = [];
  imageId: string | undefined;
  failure: ImageBuildError | undefined;

  constructor(private readonly opts: BuildOptions) {}

  lastLines(): string[] {
    return (this.step ? this.stepOutput : this.output).slice(-LAST_LINES);
  }

  /** Records a failure the stream did not report itself (the request failed). */
  failed(message: string): void {
    this.failure ??= classifyBuildError(message, this.step, this.lastLines(), this.opts.buildArgs);
  }

  take(o: BuildStreamObject): void {
    if (o.errorDetail || o.error) return this.failed((o.errorDetail?.message ?? o.error ?? 'unknown error').trim());
    if (typeof o.stream === 'string') for (const raw of o.stream.split('\n')) this.line(raw);
    if (o.aux?.ID) this.imageId = o.aux.ID;
    if (o.status) this.note(o.status + (o.progress ? ` ${o.progress}` : ''));
  }

  private line(raw: string): void {
    // The engine colours a RUN's stderr with ANSI escapes; they are noise in an error message.
    const line = raw.replace(ANSI_ESCAPE, '').trimEnd();
    if (!line) return;
    const stepLine = stepHeading(line);
    if (stepLine) {
      this.step = stepLine;
      this.stepOutput = [];
    } else if (!/^ ---> |^--> |^Removing intermediate container /.test(line)) {
      this.stepOutput.push(line);
    }
    const built = /^Successfully built ([0-9a-f]{12,64})$/.exec(line);
    if (built && !this.imageId) this.imageId = built[1];
    this.note(line);
  }

  private note(line: string): void {
    this.output.push(line);
    this.opts.onOutput?.(line);
  }
}

/** The engine's build query: tag, Containerfile, arguments, TLS setting and registry credentials for the base pull. */
function engineBuildQuery(opts: BuildOptions, tlsQuery: object, signal: AbortSignal): never {
  return {
    t: opts.tag,
    dockerfile: opts.containerfile ?? 'Containerfile',
    buildargs: opts.buildArgs ?? {},
    labels: opts.labels ?? {},
    target: opts.target,
    nocache: opts.noCache ?? false,
    ...(opts.pull ? { pull: true } : {}),
    ...(opts.platform ? { platform: opts.platform } : {}),
    rm: true,
    forcerm: true,
    abortSignal: signal,
    ...tlsQuery,
    ...(opts.registryConfig && opts.registryConfig.hosts().length ? { registryconfig: opts.registryConfig.toRegistryConfig() } : {}),
  } as never;
}

/** Feeds the build stream to the parser until the engine closes it. */
function drain(response: NodeJS.ReadableStream, parser: BuildStreamParser): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    response.on('data', (chunk: Buffer) => parser.push(chunk));
    response.on('end', () => {
      parser.end();
      resolve();
    });
    response.on('error', reject);
    response.on('close', () => resolve());
  });
}

/**
 * Builds an image with the engine. Resolves when the engine reports success; rejects with ContainerfileSyntaxError,
 * BuildStepFailedError, BaseImageUnavailableError, ImageBuildTimeoutError or ImageBuildError.
 */
export async function buildImage(engine: Engine, opts: BuildOptions): Promise<BuildResult> {
  try {
    return await buildOnce(engine, opts);
  } catch (error) {
    // dockerd's classic builder reuses the cached step images of earlier builds. Removing an image also removes its
    // untagged parents, so a build beside another that removed its image (two runs on one engine, or the parallel
    // test files) may find a cached step gone at export: "failed to set parent …: unknown parent image ID". Nothing
    // is wrong with the build; once more, it rebuilds the steps whose cache went. The step after a cached one can
    // find it gone too: 'unable to find image "sha256:…"' (an image ID, never a name the Containerfile gave).
    if (!(error instanceof ImageBuildError) || !CACHE_RACE.test(error.message)) throw error;
    return buildOnce(engine, opts);
  }
}

/** What dockerd says when a cached step image disappeared under a build. */
const CACHE_RACE = /unknown parent image ID|failed to set parent|No such image: sha256:|unable to find image "sha256:/i;

async function buildOnce(engine: Engine, opts: BuildOptions): Promise<BuildResult> {
  const started = Date.now();
  const timeoutMs = opts.timeoutMs ?? 5 * 60_000;
  // The base image comes from a build argument (FROM ${BASE_IMAGE}) in every build of this project.
  const tlsQuery = await engineTlsQuery(engine, registriesIn([...Object.values(opts.buildArgs ?? {}), opts.tag]));
  opts = await withLabelInstruction(engine, opts);
  const progress = new BuildProgress(opts);
  const abort = new AbortController();
  // A context file that cannot be read (permissions, removed meanwhile) ends the build: the engine would otherwise
  // wait for the rest of a tar that never comes.
  const { stream: tarStream, cleanup } = await contextTar(opts, (error) => {
    progress.failed(`The build context could not be read: ${error.message}`);
    abort.abort();
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, timeoutMs);
  try {
    const response = (await engine.buildImage(tarStream, engineBuildQuery(opts, tlsQuery, abort.signal))) as unknown as NodeJS.ReadableStream;
    await drain(response, new BuildStreamParser((o) => progress.take(o)));
  } catch (err) {
    if (!timedOut) progress.failed((err as { json?: { message?: string } }).json?.message ?? (err as Error).message);
  } finally {
    clearTimeout(timer);
    await cleanup();
  }
  if (timedOut) throw new ImageBuildTimeoutError(timeoutMs, progress.step, progress.lastLines());
  if (progress.failure) throw progress.failure;
  if (!progress.imageId) {
    throw new ImageBuildError('The build stream ended without a result (no image id and no error); the engine may have stopped', progress.step, progress.output.slice(-LAST_LINES));
  }
  return { tag: opts.tag, imageId: progress.imageId, durationMs: Date.now() - started, output: progress.output };
}

/** For dockerd, the labels as one LABEL instruction of the build (build-labels.ts); for podman, as given. */
async function withLabelInstruction(engine: Engine, opts: BuildOptions): Promise<BuildOptions> {
  if (!Object.keys(opts.labels ?? {}).length || (await identifyEngine(engine)).kind !== 'docker') return opts;
  const plan = await labelsAsInstruction(opts);
  if (!plan) return opts;
  return { ...opts, labels: {}, containerfile: plan.containerfile, files: { ...opts.files, ...plan.files } };
}

/**
 * Removes a local image (by tag or id). Missing images are fine: cleanups must be idempotent. `keepParents` leaves its
 * untagged parent images (the classic builder's cached steps) where another build may be using them right now.
 */
export async function removeImage(engine: Engine, image: string, opts: { force?: boolean; keepParents?: boolean } = {}): Promise<boolean> {
  try {
    await engine.getImage(image).remove({ force: opts.force ?? false, noprune: opts.keepParents ?? false });
    return true;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return false;
    // podman answers 500 "tag not known" for a by-digest name the image does not carry (any more)
    if (/tag not known|image not known/i.test((err as Error).message)) return false;
    throw err;
  }
}
