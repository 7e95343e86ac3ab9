/**
 * The cluster-version operator, reduced to what the report exercises: read `spec.desiredUpdate`, load the release
 * from its payload image in the registry, apply the machine-config operator's manifests (its deployment stand-in
 * and the machine-config-osimageurl ConfigMap), wait on ClusterOperator machine-config with the 40-minute rule, and
 * keep `status.history`, `status.desired` and the conditions as the real CVO does (spec §6).
 */
import {
  CO_NAME,
  CV_NAME,
  CVO_DEGRADED_INTERVAL_MS,
  MCO_DEPLOYMENT_CONFIGMAP,
  MCO_NAMESPACE,
  MINUTE,
  OSIMAGEURL_CONFIGMAP,
} from '../constants.js';
import type { Controller, ControllerContext } from '../context.js';
import type { KubeObject } from '../../lib/kube/client.js';
import type { Informer } from '../../lib/kube/informer.js';
import { SyncLoop } from '../kube/sync-loop.js';
import { semanticEqual } from '../equality.js';
import { operatorVersionOf, setOperatorCondition, type OperandVersion } from '../mco/operator-status.js';
import type { Condition } from '../mco/types.js';
import { mcoAt, type Profile } from '../profiles/profile.js';
import { applyReleaseCrds } from './release-crds.js';
import { summarizePrecondition, upgradeableConditions, upgradeablePrecondition, withUpgradeableConditions } from './upgradeable.js';
import { baseOsImage, extensionsImage, legacyOsImageUrl, type ReleaseInfo } from '../releases/release-info.js';
import {
  checkOperatorHealth,
  completeHistoryHead,
  completedConditions,
  reconcilingConditions,
  startHistoryEntry,
  updatingConditions,
  type HistoryEntry,
  type OperatorHealth,
  type Progress,
} from './status.js';

export interface Release {
  version: string;
  image: string;
}

export interface ClusterVersionObject extends KubeObject {
  spec?: { clusterID?: string; channel?: string; desiredUpdate?: { version?: string; image?: string; force?: boolean } | null };
  status?: {
    availableUpdates?: Release[] | null;
    desired?: Release & { url?: string };
    history?: HistoryEntry[];
    observedGeneration?: number;
    versionHash?: string;
    conditions?: Condition[];
  };
}

interface ClusterOperatorObject extends KubeObject {
  status?: { conditions?: Condition[]; versions?: OperandVersion[] };
}

/**
 * Where the machine-config ClusterOperator manifest sits in the payload (run level 0000_80 of a 4.12 payload):
 * what `n of m done` prints while the CVO waits on it.
 */
export const PAYLOAD_PROGRESS_AT_MCO: Progress = { done: 612, total: 807 };
const PAYLOAD_RETRY_MS = MINUTE;
/**
 * How often the CVO recomputes Upgradeable (pkg/cvo/upgradeable.go defaultUpgradeableCheckIntervals): at most every 2
 * minutes, every 15 s in the 2 minutes after a precondition refused an update.
 */
const UPGRADEABLE_INTERVAL_MS = 2 * MINUTE;
const UPGRADEABLE_INTERVAL_AFTER_REFUSAL_MS = 15_000;

/** The ConfigMap data the release's `0000_80_machine-config-operator_05_osimageurl.yaml` carries, per profile keys. */
export function osImageUrlConfigMapData(release: ReleaseInfo, profile: Profile): Record<string, string> {
  // the ConfigMap is the release's own manifest, written with the keys of that release's MCO
  const keys = mcoAt(profile, release.version).operator.configMapKeys;
  const data: Record<string, string> = {
    [keys.releaseVersion]: release.version,
    [keys.osImageURL]: legacyOsImageUrl(release),
    [keys.baseOSContainerImage]: baseOsImage(release),
  };
  const extensions = extensionsImage(release);
  if (keys.baseOSExtensionsContainerImage && extensions) data[keys.baseOSExtensionsContainerImage] = extensions;
  return data;
}

export interface CvoOptions {
  /** The update graph the reference serves instead of an update service: each release with its predecessors. */
  graph: Array<Release & { previous?: string[] }>;
}

export class ClusterVersionOperator implements Controller {
  private cvs!: Informer<ClusterVersionObject>;
  private cos!: Informer<ClusterOperatorObject>;
  private readonly loop: SyncLoop;
  /** The update being applied and when the CVO first reached the machine-config manifest in it. */
  private update?: { version: string; image: string; coStartMs: number };
  /** The last payload that could not be read, so a retry does not spin. */
  private failedPayload?: { image: string; force: boolean; atMs: number };
  /** When Upgradeable was last computed: the CVO throttles the check. */
  private upgradeableAtMs?: number;
  /** The Upgradeable conditions last computed, kept between the throttled checks as upstream keeps them. */
  private upgradeable: Condition[] = [];

  constructor(
    private readonly ctx: ControllerContext,
    private readonly options: CvoOptions,
  ) {
    this.loop = new SyncLoop({ clock: ctx.clock, signal: ctx.signal, sync: () => this.sync(), batchWallMs: 20, log: (l) => ctx.log('cvo', l) });
  }

  setup(): void {
    this.cvs = this.ctx.informers.for<ClusterVersionObject>('ClusterVersion');
    this.cos = this.ctx.informers.for<ClusterOperatorObject>('ClusterOperator');
    this.cvs.onChange(() => this.trigger());
    // the machine-config operator's progress, and every operator's Upgradeable (the CVO's upgradeable checks)
    this.cos.onChange(() => this.trigger());
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private trigger(): void {
    this.loop.trigger();
  }

  private scheduleAt(ms: number): void {
    this.loop.syncAt(ms);
  }

  private availableUpdates(completedVersion: string | undefined): Release[] | null {
    const updates = this.options.graph.filter((r) => completedVersion && r.version !== completedVersion && r.previous?.includes(completedVersion));
    return updates.length > 0 ? updates.map(({ version, image }) => ({ version, image })) : null;
  }

  private async sync(): Promise<void> {
    const { client, clock } = this.ctx;
    const cv = this.cvs.get(CV_NAME) ?? (await client.get<ClusterVersionObject>('ClusterVersion', CV_NAME));
    if (!cv) return;
    const status = structuredClone(cv.status ?? {});
    let conditions = status.conditions ?? [];
    let history = status.history ?? [];
    const now = clock.timestamp();
    const wanted = this.targetOf(cv, status);

    if (wanted && wanted.image !== status.desired?.image) {
      const accepted = await this.loadPayload(wanted, { conditions, history, desiredVersion: status.desired?.version }, now);
      conditions = accepted.conditions;
      if (accepted.release) {
        const release = accepted.release;
        history = startHistoryEntry(history, { version: release.version, image: wanted.image, verified: false, ...(accepted.risks ? { acceptedRisks: accepted.risks } : {}) }, now);
        status.desired = { version: release.version, image: wanted.image };
        await this.applyManifests(release, wanted.image);
        this.update = { version: release.version, image: wanted.image, coStartMs: clock.nowMs() };
      }
    }
    status.observedGeneration = cv.metadata.generation ?? status.observedGeneration;

    const head = history[0];
    if (head && head.state === 'Partial') {
      if (!this.update || this.update.image !== head.image) {
        // picked up after a restart: re-apply (idempotent) and start the wait clock now
        const release = await this.ctx.images.readRelease(head.image).catch(() => undefined);
        if (release) await this.applyManifests(release, head.image);
        this.update = { version: head.version, image: head.image, coStartMs: clock.nowMs() };
      }
      const co = this.cos.get(CO_NAME);
      const health = this.health(co, head.version);
      if (health.kind === 'ok') {
        history = completeHistoryHead(history, now);
        conditions = completedConditions(conditions, head.version, now);
        this.update = undefined;
      } else {
        const waitedMs = clock.nowMs() - this.update.coStartMs;
        conditions = updatingConditions({ conditions, version: head.version, health, operatorName: CO_NAME, progress: PAYLOAD_PROGRESS_AT_MCO, waitedMs, now });
        if (health.kind === 'ClusterOperatorDegraded' && waitedMs < CVO_DEGRADED_INTERVAL_MS) this.scheduleAt(this.update.coStartMs + CVO_DEGRADED_INTERVAL_MS);
      }
    } else if (head) {
      const co = this.cos.get(CO_NAME);
      conditions = reconcilingConditions(conditions, head.version, this.health(co, head.version), CO_NAME, now);
    }
    status.conditions = this.withUpgradeable(conditions, status, now);
    status.history = history;
    status.availableUpdates = this.availableUpdates(history.find((h) => h.state === 'Completed')?.version);
    if (!semanticEqual(status, cv.status)) {
      await client.updateStatus<ClusterVersionObject>('ClusterVersion', CV_NAME, () => status, cv); // a PUT, as the CVO's UpdateStatus: a merge patch's availableUpdates: null would drop the required field
    }
  }

  /**
   * The Upgradeable conditions, by the running CVO's code, recomputed when what they read changed and the throttle
   * allows it (`syncUpgradeable`); a change inside the throttle is taken up when it ends.
   */
  private withUpgradeable(conditions: Condition[], status: NonNullable<ClusterVersionObject['status']>, now: string): Condition[] {
    const { clock, profile } = this.ctx;
    const code = mcoAt(profile, status.desired?.version).clusterVersionOperator;
    const operators = this.cos.list().map((co) => ({ name: co.metadata.name!, conditions: co.status?.conditions }));
    const computed = upgradeableConditions(code, { operators, clusterVersionConditions: conditions });
    if (!semanticEqual(computed, this.upgradeable)) {
      const accepted = conditions.find((c) => c.type === 'ReleaseAccepted');
      const refusedLately = accepted?.status === 'False' && accepted.reason === 'PreconditionChecks' && clock.nowMs() - Date.parse(accepted.lastTransitionTime ?? now) < UPGRADEABLE_INTERVAL_MS;
      const earliest = (this.upgradeableAtMs ?? -Infinity) + (refusedLately ? UPGRADEABLE_INTERVAL_AFTER_REFUSAL_MS : UPGRADEABLE_INTERVAL_MS);
      if (clock.nowMs() >= earliest) {
        this.upgradeable = computed;
        this.upgradeableAtMs = clock.nowMs();
      } else {
        this.scheduleAt(earliest);
      }
    }
    return withUpgradeableConditions(conditions, this.upgradeable, now);
  }

  private health(co: ClusterOperatorObject | undefined, version: string): OperatorHealth {
    if (this.ctx.deviations.cvoTrustsVersionAlone && operatorVersionOf(co?.status?.versions) === version) return { kind: 'ok' };
    return checkOperatorHealth(co ? { name: CO_NAME, conditions: co.status?.conditions, versions: co.status?.versions } : undefined, CO_NAME, version);
  }

  /** desiredUpdate → {version, image}: an image wins; a bare version is looked up in availableUpdates. */
  private targetOf(cv: ClusterVersionObject, status: NonNullable<ClusterVersionObject['status']>): { version: string; image: string; force: boolean; listed: boolean } | undefined {
    const desired = cv.spec?.desiredUpdate;
    if (!desired) return undefined;
    const listed = (status.availableUpdates ?? []).find((u) => (desired.image ? u.image === desired.image : u.version === desired.version));
    const image = desired.image || listed?.image;
    if (!image) return undefined;
    return { version: desired.version ?? '', image, force: desired.force === true, listed: listed !== undefined };
  }

  private async loadPayload(
    wanted: { version: string; image: string; force: boolean; listed: boolean },
    current: { conditions: Condition[]; history: HistoryEntry[]; desiredVersion?: string },
    now: string,
  ): Promise<{ conditions: Condition[]; release?: ReleaseInfo; risks?: string }> {
    const { clock, profile } = this.ctx;
    const { conditions } = current;
    const refuse = (reason: string, message: string) => {
      this.failedPayload = { image: wanted.image, force: wanted.force, atMs: clock.nowMs() };
      this.scheduleAt(clock.nowMs() + PAYLOAD_RETRY_MS);
      return { conditions: setOperatorCondition(conditions, { type: 'ReleaseAccepted', status: 'False', reason, message }, now) };
    };
    const fail = (message: string, reason = 'RetrievePayload') => refuse(reason, `Retrieving payload failed version="${wanted.version}" image="${wanted.image}" failure=${message}`);
    if (this.failedPayload?.image === wanted.image && this.failedPayload.force === wanted.force && clock.nowMs() - this.failedPayload.atMs < PAYLOAD_RETRY_MS) {
      this.scheduleAt(this.failedPayload.atMs + PAYLOAD_RETRY_MS);
      return { conditions };
    }
    // No signatures exist for locally built releases. A release from the update graph is trusted as the update
    // service vouches for it; anything else needs --force, as on a real cluster.
    let risks: string | undefined;
    if (!wanted.listed) {
      const why = wanted.image.includes('@sha256:')
        ? `unable to verify ${wanted.image.slice(wanted.image.indexOf('@') + 1)} against keyrings: verifier-public-key-redhat`
        : 'release images that are not accessed via digest cannot be verified';
      if (!wanted.force) return fail(`The update cannot be verified: ${why}`);
      risks = `Target release version="${wanted.version}" image="${wanted.image}" cannot be verified, but continuing anyway because the update was forced: ${why}`;
    }
    let release: ReleaseInfo;
    try {
      release = await this.ctx.images.readRelease(wanted.image);
    } catch (error) {
      return fail((error as Error).message);
    }
    if (wanted.version && wanted.version !== release.version) {
      return fail(`release image version ${release.version} does not match the expected upstream version ${wanted.version}`, 'VerifyPayloadVersion');
    }
    // the preconditions of the CVO that runs now, the installed release's (pkg/cvo/sync_worker.go loadUpdatedPayload)
    const code = mcoAt(profile, current.desiredVersion).clusterVersionOperator;
    const failure = upgradeablePrecondition(code, current, release.version);
    if (failure) {
      const summary = summarizePrecondition(failure, wanted.force, { version: release.version, image: wanted.image });
      if (summary.blocks) return refuse('PreconditionChecks', summary.message);
      risks = risks ? `${risks}\n${summary.risk}` : summary.risk;
    }
    this.failedPayload = undefined;
    return {
      release,
      risks,
      conditions: setOperatorCondition(conditions, { type: 'ReleaseAccepted', status: 'True', reason: 'PayloadLoaded', message: `Payload loaded version="${release.version}" image="${wanted.image}" architecture="amd64"` }, now),
    };
  }

  /** Run level 0000_80: the MCO deployment (04), then the osimageurl ConfigMap (05), as the payload orders them. */
  private async applyManifests(release: ReleaseInfo, image: string): Promise<void> {
    const { client, profile } = this.ctx;
    await applyReleaseCrds(client, release.version);
    await client.apply('ConfigMap', { metadata: { name: MCO_DEPLOYMENT_CONFIGMAP, namespace: MCO_NAMESPACE }, data: { RELEASE_VERSION: release.version, RELEASE_IMAGE: image } });
    await client.apply('ConfigMap', { metadata: { name: OSIMAGEURL_CONFIGMAP, namespace: MCO_NAMESPACE }, data: osImageUrlConfigMapData(release, profile) });
  }
}

