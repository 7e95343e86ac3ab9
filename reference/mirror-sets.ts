/**
 * A disconnected reference cluster's mirror sets, and how its nodes read them. The objects are what a mirrored install
 * carries for the release's repositories (releases/disconnected.ts): on a release whose CRDs serve ImageDigestMirrorSet
 * (the 4.18+ sets; 4.13 upstream) an ImageDigestMirrorSet for digest pulls and an ImageTagMirrorSet for the release's
 * tag, as oc-mirror writes them; on the 4.12 set an ImageContentSourcePolicy, the one kind 4.12 serves, as
 * `oc adm release mirror` prints it for 4.12 (it mirrors pulls by digest only, so a tag is not mirrored there).
 *
 * The nodes follow whatever mirror sets the API holds at each pull, as registries.conf would once the MCO rendered it:
 * the rendering into `99-<pool>-generated-registries` and the rollout it causes are not modelled (reference/README.md).
 */
import type { KubeClient, KubeObject } from '../lib/kube/client.js';
import { isNotFound } from '../lib/kube/errors.js';
import type { Kind } from '../lib/kube/kinds.js';
import { MIRROR_KINDS, mirrorRulesOf, MirrorSets } from '../lib/oci/mirrors.js';
import { crdSetOf } from './crds/index.js';
import { mirrorPairs, RELEASE_SOURCE } from './releases/disconnected.js';

const REUSE_MS = 1000;
const MIRROR_SET_KINDS: Kind[] = ['ImageDigestMirrorSet', 'ImageTagMirrorSet', 'ImageContentSourcePolicy'];

/** The mirror-set objects of a disconnected cluster at `version`, mirroring quay.io's repositories to `registry`. */
export function mirrorSetObjects(registry: string, version: string): Array<{ kind: Kind; object: KubeObject }> {
  const pairs = mirrorPairs(registry);
  if (crdSetOf(version) === '4.12') {
    const { kind, apiVersion } = MIRROR_KINDS.icsp;
    return [{ kind, object: { apiVersion, kind, metadata: { name: 'release-0' }, spec: { repositoryDigestMirrors: pairs.map((p) => ({ source: p.source, mirrors: [p.mirror] })) } } as KubeObject }];
  }
  const idms = MIRROR_KINDS.digest;
  const itms = MIRROR_KINDS.tag;
  return [
    { kind: idms.kind, object: { apiVersion: idms.apiVersion, kind: idms.kind, metadata: { name: 'idms-release-0' }, spec: { imageDigestMirrors: pairs.map((p) => ({ source: p.source, mirrors: [p.mirror] })) } } as KubeObject },
    // only the payloads are pulled by tag (`ocp-release:<version>-x86_64`); component images always by digest
    { kind: itms.kind, object: { apiVersion: itms.apiVersion, kind: itms.kind, metadata: { name: 'itms-release-0' }, spec: { imageTagMirrors: pairs.filter((p) => p.source === RELEASE_SOURCE).map((p) => ({ source: p.source, mirrors: [p.mirror] })) } } as KubeObject },
  ];
}

/** Creates the mirror sets on a fresh cluster, as the installer does from install-config's imageDigestSources. */
export async function seedMirrorSets(client: KubeClient, registry: string, version: string): Promise<void> {
  for (const { kind, object } of mirrorSetObjects(registry, version)) await client.apply(kind, object);
}

/**
 * The mirror sets as the API holds them now, every kind the release serves (a kind it does not serve reads as none);
 * coalesced for a moment so a thousand pulls at once make one read each. A read that fails keeps the last answer, as a
 * node keeps its registries.conf.
 */
export class ClusterMirrorSets {
  private pending: { at: number; sets: Promise<MirrorSets> } | undefined;
  private last = MirrorSets.none;

  constructor(private readonly kube: KubeClient) {}

  current(): Promise<MirrorSets> {
    if (this.pending && Date.now() - this.pending.at < REUSE_MS) return this.pending.sets;
    const sets = this.read();
    this.pending = { at: Date.now(), sets };
    return sets;
  }

  private async read(): Promise<MirrorSets> {
    const objects: unknown[] = [];
    for (const kind of MIRROR_SET_KINDS) {
      try {
        objects.push(...(await this.kube.list(kind)).items);
      } catch (error) {
        if (isNotFound(error)) continue;
        return this.last;
      }
    }
    try {
      this.last = mirrorRulesOf(objects, 'the cluster');
    } catch {
      // an object the nodes could not render keeps the last good mapping, as the MCO would not roll a bad one out
    }
    return this.last;
  }
}
