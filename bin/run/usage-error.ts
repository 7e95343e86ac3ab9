/** A problem with how the command was called, with this machine or with the target: one clear message, exit code 2 unless said. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}
