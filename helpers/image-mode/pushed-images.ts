/**
 * The images the MCO pushed for the suite's MachineOSConfigs: each MachineOSBuild's image, pushed as
 * `<repository>:<build name>` and named by digest in its status (modern-mco.md §1.6). Nothing of the suite's labels
 * them, so they are listed from the builds while those exist: when the MachineOSConfig is about to be deleted (its
 * builds go with it). The undo then deletes each through the registry API (DELETE by digest, which takes the tag with
 * it) where the registry allows deletes; one that does not (405, UNSUPPORTED) is reported, not a failure. The leak
 * check asks the registry again afterwards: a tag still there that could have been deleted is left behind.
 * The internal registry is out of the suite's reach (a Service inside the cluster): its tags are named with the
 * command that removes them.
 */
import { RegistryClient } from '../../lib/oci/image-files.js';
import { parseImageRef } from '../../lib/oci/image-ref.js';
import type { Cluster } from '../cluster.js';
import { buildCredentials, type RegistryAccess } from '../credentials.js';
import { INTERNAL_REGISTRY } from './push-target.js';
import { MCO_NAMESPACE, type MachineOSBuild } from './types.js';

export interface PushedImage {
  build: string;
  /** `<repository>:<build name>`, as pushed. */
  tag: string;
  /** `<repository>@sha256:…`, once the build succeeded. */
  image?: string;
}

export type DeleteOutcome = 'deleted' | 'gone' | 'unsupported' | 'internal registry' | 'failed';

export interface PushedImageDeletion extends PushedImage {
  outcome: DeleteOutcome;
  why?: string;
}

/** The images the builds of MachineOSConfig `mosc` pushed (a reused image once: builds that reuse one share its digest). */
export async function pushedImagesOf(cluster: Cluster, mosc: string): Promise<PushedImage[]> {
  const builds = (await cluster.listIfServed<MachineOSBuild>('MachineOSBuild')).filter((b) => b.spec?.machineOSConfig?.name === mosc);
  const seen = new Set<string>();
  const out: PushedImage[] = [];
  for (const b of builds) {
    const tag = b.spec?.renderedImagePushSpec;
    const image = b.status?.digestedImagePushSpec;
    if (!tag || seen.has(image ?? tag)) continue;
    seen.add(image ?? tag);
    out.push({ build: b.metadata.name ?? '?', tag, ...(image ? { image } : {}) });
  }
  return out;
}

const inInternalRegistry = (p: PushedImage): boolean => parseImageRef(p.tag).registry === INTERNAL_REGISTRY;

/** How a person removes an image of the internal registry: its ImageStreamTag. */
export function internalRegistryTagCommand(p: PushedImage): string {
  const ref = parseImageRef(p.tag);
  const [namespace, stream] = ref.repository.split('/');
  return `oc tag -d ${stream}:${ref.tag} -n ${namespace ?? MCO_NAMESPACE}`;
}

/** One line per image: what became of it. */
export function describeDeletion(d: PushedImageDeletion): string {
  const what = d.image ?? d.tag;
  switch (d.outcome) {
    case 'deleted':
      return `deleted ${what} (tag ${d.tag}) from its registry`;
    case 'gone':
      return `${what} was already gone from its registry`;
    case 'unsupported':
      return `kept ${d.tag}: its registry does not allow deletes (${d.why ?? 'UNSUPPORTED'}); remove it with the registry's own tools`;
    case 'internal registry':
      return `kept ${d.tag} in the cluster's internal registry: ${internalRegistryTagCommand(d)}`;
    case 'failed':
      return `could not delete ${what}: ${d.why ?? 'unknown error'}`;
  }
}

/** What one session tried to delete, and what its leak check finds of it afterwards. */
export class PushedImages {
  private readonly tried: PushedImageDeletion[] = [];

  /** Deletes each image by digest with the run's credentials (completed by the cluster's pull secret). */
  async remove(cluster: Cluster, access: RegistryAccess, images: readonly PushedImage[], log: (line: string) => void): Promise<PushedImageDeletion[]> {
    if (images.length === 0) return [];
    const registry = new RegistryClient({ credentials: await buildCredentials(cluster, access) });
    const done: PushedImageDeletion[] = [];
    for (const p of images) {
      const d = await deleteOne(registry, p);
      log(describeDeletion(d));
      done.push(d);
    }
    this.tried.push(...done);
    return done;
  }

  /**
   * Asks the registries again for every tag the undo meant to delete: one still there where deletes are allowed is a
   * leak (`image <tag>`); the ones kept by design (no deletes, the internal registry) are notes to print.
   */
  async leftBehind(cluster: Cluster, access: RegistryAccess): Promise<{ leaks: string[]; notes: string[] }> {
    const leaks: string[] = [];
    const notes: string[] = [];
    const reachable = this.tried.filter((d) => d.outcome !== 'internal registry');
    const registry = reachable.length ? new RegistryClient({ credentials: await buildCredentials(cluster, access) }) : undefined;
    for (const d of this.tried) {
      if (d.outcome === 'unsupported' || d.outcome === 'internal registry') {
        notes.push(describeDeletion(d));
        continue;
      }
      const still = await registry!.hasImage(d.tag).catch((e: Error) => `cannot tell: ${e.message}`);
      if (still === true) leaks.push(`image ${d.tag}${d.outcome === 'failed' ? ` (${describeDeletion(d)})` : ''}`);
      else if (typeof still === 'string') notes.push(`pushed image ${d.tag}: ${still}`);
    }
    return { leaks, notes };
  }
}

async function deleteOne(registry: RegistryClient, p: PushedImage): Promise<PushedImageDeletion> {
  if (inInternalRegistry(p)) return { ...p, outcome: 'internal registry' };
  try {
    // a build that never finished has no digest: its tag, if it was pushed at all, is looked up first
    const image = p.image ?? `${p.tag.replace(/:[^/:]+$/, '')}@${await registry.manifestDigest(p.tag)}`;
    const outcome = await registry.deleteManifest(image);
    return { ...p, image, outcome, ...(outcome === 'unsupported' ? { why: 'the registry answered 405 / UNSUPPORTED' } : {}) };
  } catch (error) {
    if ((error as { status?: number }).status === 404) return { ...p, outcome: 'gone' };
    return { ...p, outcome: 'failed', why: (error as Error).message };
  }
}
