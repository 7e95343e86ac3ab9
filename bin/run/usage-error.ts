/** A problem with how the command was called or with this machine: exit code 2, one clear message. */
export class UsageError extends Error {
  readonly exitCode = 2;
}
