/**
 * What a layered image says the suite must find on every node that boots it: three LABELs of its Containerfile.
 *
 *   LABEL ocp-e2e.io/check-packages="usbguard other"              packages `rpm -q` must find
 *         ocp-e2e.io/check-files="/etc/x.conf:0640 /etc/y"        files, each with its octal mode when given
 *         ocp-e2e.io/check-units="x.service"                      units `systemctl is-enabled` must call enabled
 *
 * A file's contents are not written in the label: the node's copy must equal the built image's (read from the
 * registry after the push), which also proves, before any pool rolls out, that the image holds what it declares.
 */
import { fileProbe, packageProbe, unitProbe } from './node-probes.js';

export const CHECK_LABELS = {
  packages: 'ocp-e2e.io/check-packages',
  files: 'ocp-e2e.io/check-files',
  units: 'ocp-e2e.io/check-units',
} as const;

/** The checks as declared: names, paths and modes. */
export interface DeclaredChecks {
  packages: string[];
  files: Array<{ path: string; mode?: number }>;
  units: string[];
}

/** Reads the three labels; a name, path or mode that is not one is refused with the label it came from. */
export function declaredChecks(labels: Record<string, string>, source: string): DeclaredChecks {
  const items = (label: string): string[] => (labels[label] ?? '').split(/\s+/).filter(Boolean);
  const refuse = (label: string, error: unknown): never => {
    throw new Error(`${source}: LABEL ${label}: ${(error as Error).message}`);
  };
  const packages = items(CHECK_LABELS.packages);
  for (const name of packages) {
    try {
      packageProbe(name);
    } catch (error) {
      refuse(CHECK_LABELS.packages, error);
    }
  }
  const files = items(CHECK_LABELS.files).map((item) => {
    const m = /^(.*?)(?::([0-7]{3,4}))?$/.exec(item)!;
    try {
      fileProbe(m[1]!);
    } catch (error) {
      refuse(CHECK_LABELS.files, error);
    }
    if (item.includes(':') && m[2] === undefined) refuse(CHECK_LABELS.files, new Error(`${JSON.stringify(item)} is not PATH or PATH:MODE with an octal mode such as 0644`));
    return m[2] === undefined ? { path: m[1]! } : { path: m[1]!, mode: parseInt(m[2], 8) };
  });
  const units = items(CHECK_LABELS.units);
  for (const name of units) {
    try {
      unitProbe(name);
    } catch (error) {
      refuse(CHECK_LABELS.units, error);
    }
  }
  return { packages, files, units };
}
