/**
 * The Ignition part of an override MachineConfig (`spec.config`): the files and systemd units it writes, in the
 * Ignition spec 3.2 the MCO of 4.12 reads, shaped as upstream MachineConfigs are (file contents as a base64 data URL,
 * `overwrite: true`, the mode as a decimal number; units by name with their contents and whether they are enabled).
 */

export const IGNITION_VERSION = '3.2.0';

/** A file an override writes on every node of its pool. */
export interface OverrideFile {
  /** Absolute, simplified path (`/etc/ocp-e2e/marker`): Ignition refuses anything else. */
  path: string;
  contents: string;
  /** Permission bits, e.g. 0o644 (the default); Ignition stores them as a decimal number (420). */
  mode?: number;
}

/** A systemd unit an override installs, enables or disables. */
export interface OverrideUnit {
  /** With its type suffix: `ocp-e2e-marker.service`. */
  name: string;
  enabled?: boolean;
  /** The unit file; left out to only enable or disable a unit the OS already has. */
  contents?: string;
}

const DEFAULT_FILE_MODE = 0o644;

/** RFC 2397 with base64: every byte survives, and the MCO's data URL reader accepts it as written. */
function dataUrl(contents: string): string {
  return `data:text/plain;charset=utf-8;base64,${Buffer.from(contents, 'utf8').toString('base64')}`;
}

/** The `spec.config` of files and units; the keys Ignition marshals, in its order. */
export function ignitionConfig(files: OverrideFile[], units: OverrideUnit[]): Record<string, unknown> {
  const config: Record<string, unknown> = { ignition: { version: IGNITION_VERSION } };
  if (files.length) {
    config.storage = {
      files: files.map((f) => ({ contents: { source: dataUrl(f.contents) }, mode: f.mode ?? DEFAULT_FILE_MODE, overwrite: true, path: f.path })),
    };
  }
  if (units.length) {
    config.systemd = {
      units: units.map((u) => ({ ...(u.contents !== undefined ? { contents: u.contents } : {}), ...(u.enabled !== undefined ? { enabled: u.enabled } : {}), name: u.name })),
    };
  }
  return config;
}
