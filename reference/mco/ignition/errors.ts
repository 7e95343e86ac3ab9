/** The error texts of the MCO's Ignition parsing (IgnParseWrapper). */

export class IgnitionError extends Error {}

export interface ReportEntry {
  path: string;
  message: string;
}

const SPEC_NAMES = { '3.2': 'v3.2', '3.1': 'v3.1', '3.0': 'v3.0' } as const;

export function invalidConfigError(spec: keyof typeof SPEC_NAMES, report: string): IgnitionError {
  return new IgnitionError(`parsing Ignition config spec ${SPEC_NAMES[spec]} failed with error: config is not valid\nReport: ${report}`);
}
