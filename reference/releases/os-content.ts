// What a simulated node learns from the OS image it "boots": /etc/os-release and the installed packages, read from the
// image's layers in the registry (no engine needed). The package database format is described in images/README.md.
import type { RegistryClient } from '../../lib/oci/image-files.js';

/** Where the RHCOS-like images keep their package database (one `NAME\tVERSION\tRELEASE\tARCH` per line). */
export const RPMDB_PATH = '/usr/share/rpm/ocp-e2e-rpmdb.tsv';

export interface InstalledRpm {
  name: string;
  version: string;
  release: string;
  arch: string;
}

export interface OsImageContent {
  /** Registry digest of the image manifest. */
  digest: string;
  /** Parsed /etc/os-release (KEY → unquoted value). */
  osRelease: Record<string, string>;
  /** `name-version-release`, in database order. */
  packages: string[];
  /** The same packages with their architecture. */
  rpms: InstalledRpm[];
}

/** Parses os-release(5): KEY=value lines, values optionally in single or double quotes with backslash escapes. */
export function parseOsRelease(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    let value = line.slice(eq + 1);
    if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) {
      value = value.slice(1, -1).replace(/\\(.)/g, '$1');
    }
    out[line.slice(0, eq)] = value;
  }
  return out;
}

export function parseRpmDb(text: string): InstalledRpm[] {
  const out: InstalledRpm[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [name, version, release, arch] = line.split('\t');
    if (name && version && release && arch) out.push({ name, version, release, arch: arch.trim() });
  }
  return out;
}

/** Reads an OS image's identity and package list from the registry. */
export async function readOsImageContent(client: RegistryClient, ref: string): Promise<OsImageContent> {
  const digest = await client.manifestDigest(ref);
  const [etcOsRelease, usrOsRelease, rpmdb] = await client.readFiles(ref, ['/etc/os-release', '/usr/lib/os-release', RPMDB_PATH]);
  const osReleaseText = (etcOsRelease ?? usrOsRelease)?.toString('utf8') ?? '';
  const rpms = rpmdb ? parseRpmDb(rpmdb.toString('utf8')) : [];
  return {
    digest,
    osRelease: parseOsRelease(osReleaseText),
    packages: rpms.map((r) => `${r.name}-${r.version}-${r.release}`),
    rpms,
  };
}
