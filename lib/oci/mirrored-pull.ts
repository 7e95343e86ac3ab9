// Where a pull is served from when mirror sets apply: the first of its candidates (mirrors.ts) that has the image, as
// containers/image tries them. Shared by the suite's registry client (MirroredRegistryClient) and the reference's nodes
// (reference/images.ts), which each say a failure in their own words.
import { ImageHelperError, RegistryUnreachableError } from './errors.js';
import { RegistryClient } from './image-files.js';
import { parseImageRef } from './image-ref.js';
import { MirrorSets } from './mirrors.js';
import { unreachableFromHere } from './reachability.js';
import type { RegistryApiOptions } from './registry-api.js';

/** One candidate that did not serve the pull, and why. */
export interface FailedCandidate {
  ref: string;
  error: Error;
  mirror: boolean;
}

/** No candidate served the pull: `tried` in order (mirrors first, then the source unless blocked). */
export class MirroredPullError extends ImageHelperError {
  constructor(
    readonly ref: string,
    readonly tried: FailedCandidate[],
    readonly mirrors: MirrorSets,
  ) {
    super(describeFailure(ref, tried, mirrors), { cause: tried.at(-1)?.error });
  }

  /** The source's own failure (the last candidate when it was tried), else the last mirror's. */
  get sourceError(): Error | undefined {
    const last = this.tried.at(-1);
    return last && !last.mirror ? last.error : undefined;
  }
}

function describeFailure(ref: string, tried: FailedCandidate[], mirrors: MirrorSets): string {
  const source = tried.find((t) => !t.mirror);
  const viaMirrors = tried.filter((t) => t.mirror);
  const mirrorText = viaMirrors.length
    ? `mirrors also failed (${mirrors.describe()}): ${viaMirrors.map((t) => `${t.ref}: ${t.error.message}`).join('; ')}`
    : mirrors.empty ? 'no mirror sets apply' : `no mirror of ${mirrors.describe()} serves this pull of ${ref} (${parseImageRef(ref).digest ? 'by digest' : 'by tag'})`;
  if (!source) return `${ref} is never pulled from its source (NeverContactSource), and ${mirrorText}`;
  return `${source.error.message} (${mirrorText})`;
}

/**
 * The candidate of `ref` that `probe` accepts (it asks for the manifest), trying each in turn; a candidate this
 * machine cannot reach (reachability.ts) fails without a request. Throws MirroredPullError naming every failure.
 */
export async function pullSource(ref: string, mirrors: MirrorSets, probe: (candidate: string) => Promise<void>, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const tried: FailedCandidate[] = [];
  for (const candidate of mirrors.candidates(ref)) {
    const mirror = candidate.rule !== undefined;
    try {
      const registry = parseImageRef(candidate.ref).registry;
      const cut = unreachableFromHere(registry, env);
      if (cut) throw new RegistryUnreachableError(registry, cut);
      await probe(candidate.ref);
      return candidate.ref;
    } catch (error) {
      tried.push({ ref: candidate.ref, error: error as Error, mirror });
    }
  }
  throw new MirroredPullError(ref, tried, mirrors);
}

/**
 * The suite's registry client on a cluster with mirror sets: every read (manifests, blobs, and so files) is served from
 * where a node would pull it. Without mirror sets it is a RegistryClient that still keeps to the machine's reach.
 */
export class MirroredRegistryClient extends RegistryClient {
  readonly mirrors: MirrorSets;
  private readonly env: NodeJS.ProcessEnv;
  private readonly sources = new Map<string, Promise<string>>();

  constructor(opts: RegistryApiOptions & { mirrors?: MirrorSets } = {}) {
    super(opts);
    this.mirrors = opts.mirrors ?? MirrorSets.none;
    this.env = opts.env ?? process.env;
  }

  /** Where a pull of `ref` is served from (kept for the client's life; a failure is asked again next time). */
  pullFrom(ref: string): Promise<string> {
    let known = this.sources.get(ref);
    if (!known) {
      known = pullSource(ref, this.mirrors, async (candidate) => void (await super.manifestDigest(candidate)), this.env).catch((error: unknown) => {
        this.sources.delete(ref);
        throw unwrapSingle(error);
      });
      this.sources.set(ref, known);
    }
    return known;
  }

  override async manifestDigest(refText: string): Promise<string> {
    return super.manifestDigest(await this.pullFrom(refText));
  }

  override async imageManifest(refText: string): ReturnType<RegistryClient['imageManifest']> {
    return super.imageManifest(await this.pullFrom(refText));
  }

  override async blob(refText: string, digest: string): Promise<Buffer> {
    return super.blob(await this.pullFrom(refText), digest);
  }
}

/** Without mirrors there was one candidate: its own error (ImageNotFoundError, …) says it best, with its class. */
function unwrapSingle(error: unknown): unknown {
  if (error instanceof MirroredPullError && error.tried.length === 1 && !error.tried[0]!.mirror && error.mirrors.rulesFor(error.ref).length === 0) return error.tried[0]!.error;
  return error;
}
