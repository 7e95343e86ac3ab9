/**
 * The last word of an exec session on its error stream, the same for every transport (WebSocket channel 3, the SPDY
 * stream of type `error`): v4 and v5 a Status (Success, or NonZeroExitCode with the code as the ExitCode cause,
 * worded as CRI-O's exec error); the original `channel.k8s.io` an error text, nothing on success.
 */
export function statusFor(protocol: string, argv: string[], exitCode: number): string {
  const message = `command terminated with non-zero exit code: error executing command [${argv.join(' ')}], exit code ${exitCode}`;
  if (protocol === 'channel.k8s.io') return exitCode === 0 ? '' : message;
  if (exitCode === 0) return JSON.stringify({ metadata: {}, status: 'Success' });
  return JSON.stringify({
    metadata: {},
    status: 'Failure',
    message,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  });
}
