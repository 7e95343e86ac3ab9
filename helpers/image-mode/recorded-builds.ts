/**
 * What the upgrade's recording says of one image-mode pool, judged after the fact as origin judges its intervals: the
 * final state can look right while something went wrong on the way, and only the record shows it.
 *  - No node of the pool was ever told a rendered config together with an image not built for that config, nor
 *    reported running such a pair. Before OCPBUGS-53408's fix (MCO 57eee4a69, 4.19.0) the node controller moved
 *    desiredConfig while the build of the new config was not done, with the MachineOSConfig's old image beside it.
 *  - Each MachineOSBuild of the pool was made once: one build per rendered config and build inputs. Before
 *    OCPBUGS-58238's fix (MCO 35bc4a2b0, 4.20.0) a machine-os-builder restarted mid-rollout (its node drained) deleted
 *    the build of the pool's target config and made it again, built once more.
 *  - The pool never had a degraded node or a failed build (NodeDegraded, ImageBuildDegraded).
 * A rendered config belongs to the pool by its name (`rendered-<pool>-<hash>`), a build by its MachineOSConfig.
 */
import { fails, holds, quote, type Fact } from '../facts/fact.js';
import { States, type Interval, type UpgradeRecording } from '../monitor/recording.js';

export interface RecordedPool {
  pool: string;
  machineOSConfig: string;
}

/** One MachineOSBuild object as recorded: its name, uid, config, and what its intervals said, in order. */
interface RecordedBuild {
  name: string;
  uid: string;
  renderedConfig: string;
  /** Timeline index and interval of each state it was seen in. */
  seen: Array<{ index: number; interval: Interval }>;
}

const isPoolConfig = (pool: string, config: string | undefined): config is string => !!config && config.startsWith(`rendered-${pool}-`);

function buildsOf(recording: UpgradeRecording, machineOSConfig: string): RecordedBuild[] {
  const byUid = new Map<string, RecordedBuild>();
  recording.timeline.forEach((interval, index) => {
    if (interval.kind !== 'MachineOSBuild' || interval.fields?.machineOSConfig !== machineOSConfig) return;
    const uid = interval.fields.uid ?? `${interval.name} (no uid)`;
    const build = byUid.get(uid) ?? { name: interval.name, uid, renderedConfig: interval.fields.renderedConfig ?? '?', seen: [] };
    build.seen.push({ index, interval });
    byUid.set(uid, build);
  });
  return [...byUid.values()];
}

const imageOf = (build: RecordedBuild): string | undefined => build.seen.map((s) => s.interval.fields?.image).filter((i) => i !== undefined).at(-1);

/** A build's recorded state in words: the True condition, or "made" before it has any. */
const said = (interval: Interval): string => (interval.value === '-' ? 'made' : interval.value);

/** What the build said at `index` ("Building"; "not made yet" when it was made later). */
function stateAt(build: RecordedBuild, index: number): string {
  const before = build.seen.filter((s) => s.index <= index).at(-1);
  return before ? said(before.interval) : 'not made yet';
}

function describeBuild(build: RecordedBuild): string {
  const image = imageOf(build);
  return `machineosbuild/${build.name} (uid ${build.uid}, ${build.seen.map((s) => `${said(s.interval)} at ${s.interval.from.cluster}`).join(', ')}${image ? `, image ${image}` : ''})`;
}

/** A node's image-mode annotations at one moment of the recording. */
interface NodePairs {
  desiredConfig?: string;
  desiredImage?: string;
  currentConfig?: string;
  currentImage?: string;
}

const PAIR_STATES: Record<string, keyof NodePairs> = {
  [States.node.desiredConfig]: 'desiredConfig',
  [States.node.desiredImage]: 'desiredImage',
  [States.node.currentConfig]: 'currentConfig',
  [States.node.currentImage]: 'currentImage',
};

/**
 * Every node of the pool, at every moment the recording saw its annotations change, was told (desiredConfig,
 * desiredImage) and ran (currentConfig, currentImage) a config with an image some MachineOSBuild of that config built
 * (or reused). The intervals of one node that begin at one moment are one change: the node controller writes the
 * desired pair in one patch and the daemon the current pair, so a half-written pair is never judged.
 */
export function configsCameWithTheirImages(recording: UpgradeRecording, asked: RecordedPool): Fact {
  const builds = buildsOf(recording, asked.machineOSConfig);
  if (builds.length === 0) return fails(`the upgrade's recording holds no MachineOSBuild of MachineOSConfig ${asked.machineOSConfig}: the monitor did not follow MachineOSBuilds (may the suite list and watch them?), so it cannot tell which image was built for which config`);
  const imagesOf = (config: string) => new Set(builds.filter((b) => b.renderedConfig === config).map(imageOf).filter((i): i is string => i !== undefined));
  const nodes = new Map<string, NodePairs>();
  const timeline = recording.timeline;
  let judged = 0;
  for (let i = 0; i < timeline.length; i++) {
    const first = timeline[i]!;
    if (first.kind !== 'Node') continue;
    // the intervals of this node that began at this moment: one change
    let last = i;
    while (timeline[last + 1]?.locator === first.locator && timeline[last + 1]!.from.wall === first.from.wall) last++;
    const pairs = { ...nodes.get(first.name) };
    for (let j = i; j <= last; j++) {
      const key = PAIR_STATES[timeline[j]!.condition];
      if (key) pairs[key] = timeline[j]!.value === '-' ? undefined : timeline[j]!.value;
    }
    nodes.set(first.name, pairs);
    for (const [told, config, image] of [
      ['was told', pairs.desiredConfig, pairs.desiredImage],
      ['reported running', pairs.currentConfig, pairs.currentImage],
    ] as const) {
      if (!isPoolConfig(asked.pool, config) || !image) continue;
      judged++;
      if (imagesOf(config).has(image)) continue;
      const ownBuilds = builds.filter((b) => b.renderedConfig === config);
      const madeBy = builds.filter((b) => imageOf(b) === image);
      const should = ownBuilds.length
        ? `it should have had the image of ${ownBuilds.map((b) => `machineosbuild/${b.name}, ${stateAt(b, last)} then${imageOf(b) ? ` (its image is ${imageOf(b)})` : ' (no image)'}`).join('; ')}`
        : `no MachineOSBuild of ${config} was ever recorded`;
      const origin = madeBy.length ? `${image} is the image of ${madeBy.map((b) => `machineosbuild/${b.name} (rendered config ${b.renderedConfig})`).join(', ')}` : `no build of pool ${asked.pool} made ${image}`;
      return fails(
        `node ${first.name} ${told} rendered config ${config} together with image ${image} at ${first.from.cluster} of the upgrade, an image not built for that config: ${origin}; ${should} ` +
          `(OCPBUGS-53408: the node controller moved desiredConfig before the build of that config finished, fixed in 4.19.0 by MCO 57eee4a69)`,
      );
    }
    i = last;
  }
  return holds(`every node of pool ${asked.pool} was told and ran its rendered configs with their own builds' images (${judged} pair(s) judged, ${builds.length} MachineOSBuild(s) recorded)`);
}

/**
 * Each build of the pool was made once over the upgrade: one MachineOSBuild object per build name. The name hashes the
 * build's inputs (the rendered config, the MachineOSConfig's spec and, on 4.19-4.21, the osimageurl ConfigMap:
 * buildrequest `objectsForHash`), so a rendered config may have several builds of different inputs (a builder that
 * starts after the upgrade's new ConfigMap builds the rolled-out config FROM the new base); a name made again is the
 * same inputs built twice, as OCPBUGS-58238's restarted builder did.
 */
export function eachBuildMadeOnce(recording: UpgradeRecording, asked: RecordedPool): Fact {
  const builds = buildsOf(recording, asked.machineOSConfig);
  if (builds.length === 0) return fails(`the upgrade's recording holds no MachineOSBuild of MachineOSConfig ${asked.machineOSConfig}: the monitor did not follow MachineOSBuilds, so it cannot count them`);
  const byName = new Map<string, RecordedBuild[]>();
  for (const b of builds) byName.set(b.name, [...(byName.get(b.name) ?? []), b]);
  const twice = [...byName.values()].find((list) => list.length > 1);
  if (!twice) {
    const configs = new Set(builds.map((b) => b.renderedConfig));
    return holds(`${builds.length} MachineOSBuild(s) of pool ${asked.pool} for ${configs.size} rendered config(s), each made once: ${builds.map((b) => `machineosbuild/${b.name} of ${b.renderedConfig}`).join(', ')}`);
  }
  const config = twice[0]!.renderedConfig;
  return fails(
    `rendered config ${config} of pool ${asked.pool} was built ${twice.length} times by machineosbuild/${twice[0]!.name} during the upgrade, expected once: ${twice.map(describeBuild).join('; then ')} ` +
      `(OCPBUGS-58238: a restarted machine-os-builder deleted the build of a config already built or building and made it again, fixed in 4.20.0 by MCO 35bc4a2b0)`,
  );
}

/**
 * The pool never had a degraded node or a failed build while the upgrade was recorded (NodeDegraded, ImageBuildDegraded
 * True). Its Degraded may still be True for a moment at each hop: RenderDegraded, which upstream's render controller
 * sets on every pool while the new release's template controller has not yet regenerated the templates ("Ignoring MC
 * 00-worker generated by older version", release-4.22 pkg/controller/render/render_controller.go), is not the pool's.
 */
export function poolNeverDegraded(recording: UpgradeRecording, pool: string): Fact {
  const degraded = recording.timeline.filter((i) => i.locator === `MachineConfigPool/${pool}` && DEGRADING.includes(i.condition) && i.value === 'True');
  const first = degraded[0];
  if (!first) return holds(`mcp/${pool} had no degraded node and no failed build during the upgrade`);
  const until = first.to ? `to ${first.to.cluster}` : 'to the end of the recording';
  return fails(`mcp/${pool} was ${first.condition} from ${first.from.cluster} ${until} of the upgrade${first.reason ? ` (${first.reason})` : ''}: ${quote(first.message)}; expected an image-mode pool never to have a degraded node or a failed build through an upgrade`);
}

/** The pool conditions that say its nodes or its build failed (Degraded also follows RenderDegraded). */
const DEGRADING = ['NodeDegraded', 'ImageBuildDegraded'];
