/** The error texts of the MCO's Ignition parsing (IgnParseWrapper). */

export class IgnitionError extends Error {}

export interface ReportEntry {
  path: string;
  message: string;
}

/**
 * The spec the MCO names in "parsing Ignition config spec <x> failed": 4.12 names the version it parsed (v3.2, v3.1,
 * v3.0); 4.13, which parses every 3.x through one compatible parser, says v3.
 */
const SPEC_NAMES = { '3.2': 'v3.2', '3.1': 'v3.1', '3.0': 'v3.0', '3': 'v3' } as const;
export type SpecLabel = keyof typeof SPEC_NAMES;

export function invalidConfigError(spec: SpecLabel, report: string): IgnitionError {
  return new IgnitionError(`parsing Ignition config spec ${SPEC_NAMES[spec]} failed with error: config is not valid\nReport: ${report}`);
}
