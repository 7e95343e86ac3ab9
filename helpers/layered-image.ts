/**
 * Step 2 of the report: build a layered OS image (by default images/layered-os/Containerfile, the report's zsh) on top
 * of the release's rhel-coreos-8 image, push it to the run's image repository, and hand back the pullspec by digest (every node pulls
 * on its own, so a moving tag is never used). The image carries an expiry label as QE's images do. The engine, the
 * repository and the credentials come from the caller (the session): nothing here is global.
 */
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { buildImage, removeImage, stepHeading } from '../lib/oci/build.js';
import type { RegistryCredentials } from '../lib/oci/credentials.js';
import type { Engine } from '../lib/oci/engine.js';
import { pushImage } from '../lib/oci/push.js';
import { runImageTag, testImageLabels } from './images/naming.js';

/** What to build on top of the base image: a build context, its Containerfile and build arguments. */
export interface LayeredImageRecipe {
  /** The build context folder. */
  contextDir: string;
  /** The Containerfile's path inside the context. */
  containerfile: string;
  /** Build arguments besides BASE_IMAGE, which is always the base image given (PACKAGES, REPO_FILE, …). */
  buildArgs: Record<string, string>;
}

/** The report's layered image: images/layered-os/Containerfile with its own defaults (zsh from CentOS Stream). */
export const REPORT_LAYERED_OS: LayeredImageRecipe = {
  contextDir: join(dirname(fileURLToPath(import.meta.url)), '..', 'images', 'layered-os'),
  containerfile: 'Containerfile',
  buildArgs: {},
};

export interface LayeredImage {
  /** `<repo>@sha256:…`: what the MachineConfigs use. */
  pullspec: string;
  digest: string;
  /** `<repo>:<run-id>-<case-id>`: the tag it was pushed as. */
  tag: string;
  baseImage: string;
  buildMs: number;
  pushMs: number;
}

export interface LayeredImageRequest {
  engine: Engine;
  /** Repository to push to (helpers/images/repository.ts). */
  repository: string;
  /** Pull the base image and push the result with these. */
  credentials: RegistryCredentials;
  runId: string;
  caseId: string;
  baseImage: string;
  /** What to build on the base image; default REPORT_LAYERED_OS. */
  recipe?: LayeredImageRecipe;
  /** Build output lines (for the report); secrets never reach them, the engine gets credentials out of band. */
  onOutput?: (line: string) => void;
  /** Where the build and push are, for the console: each build step, then the push and its result. */
  onProgress?: (line: string) => void;
}

export async function buildLayeredOsImage(request: LayeredImageRequest): Promise<LayeredImage> {
  const tag = runImageTag(request.repository, request.runId, request.caseId);
  const recipe = request.recipe ?? REPORT_LAYERED_OS;
  const built = await buildImage(request.engine, {
    contextDir: recipe.contextDir,
    containerfile: recipe.containerfile,
    buildArgs: { ...recipe.buildArgs, BASE_IMAGE: request.baseImage },
    labels: testImageLabels({ runId: request.runId, caseId: request.caseId }),
    tag,
    registryConfig: request.credentials,
    onOutput: (line) => {
      request.onOutput?.(line);
      const heading = stepHeading(line);
      // one console line per step: a long RUN or ARG is cut, the whole text is in the build output attachment
      if (heading) request.onProgress?.(`build ${heading.length > 100 ? `${heading.slice(0, 99)}…` : heading}`);
    },
  });
  request.onProgress?.(`built ${tag} in ${(built.durationMs / 1000).toFixed(1)}s; pushing it`);
  const pushed = await pushImage(request.engine, tag, { auth: request.credentials });
  request.onProgress?.(`pushed ${pushed.pullspec} in ${(pushed.durationMs / 1000).toFixed(1)}s`);
  return { pullspec: pushed.pullspec, digest: pushed.digest, tag, baseImage: request.baseImage, buildMs: built.durationMs, pushMs: pushed.durationMs };
}

/**
 * Removes the engine's local copies of a layered image (its tag and its by-digest reference). The pushed image stays
 * in the registry, where its expiry label ages it out; the base image stays cached for the next build.
 */
export async function removeLocalLayeredImage(engine: Engine, image: Pick<LayeredImage, 'tag' | 'pullspec'>): Promise<void> {
  for (const ref of [image.tag, image.pullspec]) await removeImage(engine, ref);
}
