// Error types of the image helpers. Each failure a person can meet while building, pushing or reading images has its
// own class, so callers (and tests) can tell them apart with `instanceof`, and each message says what to do next.

/** Base class: every image-related failure of lib/oci extends it. */
export class ImageHelperError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** No container engine answered on any of the sockets we tried. */
export class EngineUnavailableError extends ImageHelperError {
  constructor(
    readonly tried: { address: string; problem: string }[],
    options?: { cause?: unknown },
  ) {
    super(
      'No container engine answered. Tried:\n' +
        tried.map((t) => `  - ${t.address}: ${t.problem}`).join('\n') +
        '\nStart the Docker engine (dockerd) or podman\'s API service (`podman system service`), ' +
        'or point DOCKER_HOST at a running one (unix:///path/to/sock or tcp://127.0.0.1:PORT).',
      options,
    );
  }
}

/** Neither the registry binary nor a local registry image is available. */
export class RegistryUnavailableError extends ImageHelperError {}

/** A build failed. `step` is the Containerfile step that was running, `lastLines` the last output lines. */
export class ImageBuildError extends ImageHelperError {
  constructor(
    message: string,
    readonly step: string | undefined,
    readonly lastLines: string[],
    options?: { cause?: unknown },
  ) {
    super(
      message +
        (step ? `\nFailing step: ${step}` : '') +
        (lastLines.length ? `\nLast output lines:\n${lastLines.map((l) => `  | ${l}`).join('\n')}` : ''),
      options,
    );
  }
}

/** The Containerfile could not be parsed (unknown instruction, bad syntax). */
export class ContainerfileSyntaxError extends ImageBuildError {}

/** A RUN step exited non-zero (e.g. `rpm-ostree install nosuchpkg`). */
export class BuildStepFailedError extends ImageBuildError {
  constructor(
    message: string,
    step: string | undefined,
    lastLines: string[],
    readonly exitCode: number | undefined,
  ) {
    super(message, step, lastLines);
  }
}

/** The FROM image does not exist, or the registry refused to give it to us. */
export class BaseImageUnavailableError extends ImageBuildError {
  constructor(
    message: string,
    step: string | undefined,
    lastLines: string[],
    readonly baseImage: string | undefined,
    readonly unauthorized: boolean,
  ) {
    super(message, step, lastLines);
  }
}

/** The build did not finish within its time budget; it was cancelled. */
export class ImageBuildTimeoutError extends ImageBuildError {
  constructor(
    readonly timeoutMs: number,
    step: string | undefined,
    lastLines: string[],
  ) {
    super(
      `Image build did not finish within ${timeoutMs} ms and was cancelled. ` +
        'Look at the step below: a RUN waiting on the network (no network here) or a very slow step; ' +
        'raise timeoutMs if the build is just slow.',
      step,
      lastLines,
    );
  }
}

/** The registry could not be reached at all (connection refused, DNS, TLS). */
export class RegistryUnreachableError extends ImageHelperError {
  constructor(
    readonly registry: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`Registry ${registry} is unreachable: ${detail}. Check that it is running and that the address is right.`, options);
  }
}

/** The registry refused our credentials (or we had none) for a push. */
export class PushUnauthorizedError extends ImageHelperError {
  constructor(
    readonly registry: string,
    readonly repository: string,
    detail: string,
    readonly hadCredentials: boolean,
  ) {
    const status = /\b401\b|unauthorized|no basic auth credentials|authentication required/i.test(detail)
      ? ' with 401 Unauthorized'
      : /\b403\b|denied|forbidden/i.test(detail)
        ? ' with 403 Forbidden'
        : '';
    super(
      `Push of ${repository} was refused by ${registry}${status} (${detail}). ` +
        (hadCredentials
          ? 'The credentials found for this registry were rejected or lack push rights; check the pull secret / docker config entry for it.'
          : `No credentials for ${registry} were found; add an "auths" entry for it to the pull secret or docker config.`),
    );
  }
}

/** Any other push failure reported by the engine. */
export class ImagePushError extends ImageHelperError {}

/** A registry API call failed (other than unreachable). */
export class RegistryRequestError extends ImageHelperError {
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

/** The registry asked for credentials and the ones we had (if any) were refused. */
export class RegistryUnauthorizedError extends RegistryRequestError {}

/** The image (tag or digest) is not in the registry. */
export class ImageNotFoundError extends RegistryRequestError {}
