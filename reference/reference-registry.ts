/**
 * The registry of a profile's releases: the local OCI registry on its storage folder (shared between runs, or private
 * while another process's cluster holds it), with the release set built into it (once, then cached). Several clusters
 * of one process may share it: pass it as `registry` to each.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeCertificateAuthority, type CertificateAuthority } from '../mock/index.js';
import { connectEngine, type Engine } from '../lib/oci/engine.js';
import { Cleanups, type Say } from './cleanups.js';
import { REFERENCE_TRUST_ENV, startClusterRegistry, type ClusterRegistry } from './registry.js';
import { RegistryClient } from '../lib/oci/image-files.js';
import { releasesForArch } from './releases/arch-releases.js';
import { ensureReleases, type BuiltReleases } from './releases/ensure.js';
import type { Arch } from './topology.js';
import type { ReleaseSet } from './releases/release-set.js';
import { acquireWorkDir } from './workdir.js';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The local registry holding one release set, on its storage folder; stop() stops it and frees the folder. Its CA is
 * the CA of every cluster that uses it (it signs their API servers' certificates too), its credentials their pull secret.
 */
export interface ReferenceRegistry {
  registry: ClusterRegistry;
  ca: CertificateAuthority;
  /** What was asked for: the releases of the profile the registry was started for. */
  releaseSet: ReleaseSet;
  /** What was built: the releases' pullspecs, for the architecture asked. */
  releases: BuiltReleases;
  /** The nodes' architectures the releases are for (topology.ts). */
  arch: Arch;
  /** Its payloads name quay.io's pullspecs, reached through the clusters' mirror sets (releases/disconnected.ts). */
  disconnected: boolean;
  stop(): Promise<void>;
}

export interface ReferenceRegistryOptions {
  /** The releases to hold: a profile's `releases`. */
  releases: ReleaseSet;
  /** Default `<repo>/.cache/reference`; while another live cluster holds it, a private folder next to it. */
  workDir?: string;
  log?: Say;
  /** The clusters' architectures: amd64 (default), arm64 (arm64 images and payload) or multi (image indexes). */
  arch?: Arch;
  /** Payloads as a disconnected cluster has them, naming quay.io (releases/disconnected.ts); amd64 only. Default false. */
  disconnected?: boolean;
}

export async function startReferenceRegistry(options: ReferenceRegistryOptions): Promise<ReferenceRegistry> {
  const say = options.log ?? (() => undefined);
  const cleanups = new Cleanups(say);
  try {
    const work = await acquireWorkDir(path.resolve(options.workDir ?? path.join(REPO_ROOT, '.cache', 'reference')));
    cleanups.push(() => work.release());
    if (work.private) say(`registry storage ${work.path} (the shared one is in use by another cluster)`);
    const arch = options.arch ?? 'amd64';
    const disconnected = options.disconnected ?? false;
    if (disconnected && arch !== 'amd64') throw new Error(`--disconnected is modelled for amd64 clusters only, not --arch ${arch}`);
    const started = await startRegistryWithReleases(work.path, options.releases, { arch, disconnected }, cleanups, say);
    let stopped: Promise<void> | undefined;
    return { ...started, releaseSet: options.releases, arch, disconnected, stop: () => (stopped ??= cleanups.run()) };
  } catch (error) {
    await cleanups.run();
    throw error;
  }
}

/**
 * The local registry on `workDir`, holding the releases as real images (built once, then cached): HTTPS with a
 * certificate of a new CA, credentials required (reference/registry.ts).
 */
async function startRegistryWithReleases(workDir: string, releases: ReleaseSet, { arch, disconnected }: { arch: Arch; disconnected: boolean }, cleanups: Cleanups, say: Say): Promise<Pick<ReferenceRegistry, 'registry' | 'ca' | 'releases'>> {
  // One CA for the registry and the API servers of its clusters, as OpenShift has one trust anchor for both.
  const ca = makeCertificateAuthority('ocp-e2e reference cluster CA');
  const secretsDir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-reference-trust-'));
  cleanups.push(() => rm(secretsDir, { recursive: true, force: true }));
  // an engine is needed only to build release images the registry lacks, or to run the registry as a container
  let connecting: Promise<Engine | undefined> | undefined;
  const engine = () => (connecting ??= connectEngine().catch(() => undefined));
  const registry = await startClusterRegistry({ storageDir: path.join(workDir, 'registry'), secretsDir, ca, engine });
  cleanups.push(() => registry.stop());
  say(`registry ${registry.address} (${registry.kind}, HTTPS, credentials required)`);
  const built = await ensureReleases({ releases, engine, registry: registry.address, credentials: registry.credentials, caPems: [ca.caPem], log: say, disconnected });
  say(`releases ready in ${(built.durationMs / 1000).toFixed(1)} s${built.built.length ? ` (built ${built.built.length} images)` : ' (cached)'}`);
  const forArch = await releasesForArch(new RegistryClient({ credentials: registry.credentials, caPems: [ca.caPem], env: REFERENCE_TRUST_ENV }), built, arch);
  if (arch !== 'amd64') say(`releases for ${arch}: payload ${forArch.current.image}`);
  return { registry, ca, releases: { current: forArch.current, next: forArch.next, path: forArch.path } };
}
