/**
 * The render controller's pure logic: merge a pool's MachineConfigs in name order and name the result
 * `rendered-<pool>-<md5>`, where the hash covers the merged spec only (spec §3). Metadata never enters the hash, so an
 * upgrade that changes nothing in the spec keeps the rendered name.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import { ANN, MC_API_VERSION } from '../constants.js';
import type { McoBuild, Profile } from '../profiles.js';
import type {
  ControllerConfig,
  IgnitionConfig,
  IgnitionFile,
  IgnitionUnit,
  MachineConfig,
  MachineConfigPool,
  MachineConfigSpec,
  ObjectReference,
} from './types.js';

/**
 * A fixed 80-byte salt mixed into the rendered-name hash, like the real render controller does. The bytes are this
 * project's own, so rendered names look like real ones but never equal a real cluster's (which a different Ignition
 * content would prevent anyway).
 */
const RENDER_SALT_HEX =
  '3fdc40c4159a18477e30f184db15d4cd5b30512e041fa41c09e8a230a39fe4b2f9fcee5c954929efced2f06b8045cb3cb1' +
  '5030212c3bdd6d18423aefc1ef889d7b11dccaa67e0a737c5fe7e3c2515789';

/**
 * Byte-wise comparison of names, the order Go's sort on strings gives (not locale order). Kubernetes names are ASCII,
 * where UTF-16 code-unit order equals byte order.
 */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortByName<T extends { metadata: { name?: string } }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => compareNames(a.metadata.name ?? '', b.metadata.name ?? ''));
}

/** The default OS image of a ControllerConfig: `baseOSContainerImage` with the new-format flag (FIX), else `osImageURL`. */
export function defaultOsImage(cc: ControllerConfig, profile: Profile): string {
  return profile.newFormatImageByDefault ? cc.spec.baseOSContainerImage : cc.spec.osImageURL;
}

export interface MergeOptions {
  defaultOsImageURL: string;
  defaultExtensionsImage?: string;
  /** Whether the spec carries baseOSExtensionsContainerImage (FIX and later). */
  includeExtensionsImage: boolean;
  /** Fault `render-merge-unsorted`: walk the configs in reverse name order. */
  reverseOrder?: boolean;
}

export interface MergeResult {
  spec: MachineConfigSpec;
  /** The configs in the order they were merged, as pool.spec.configuration.source lists them. */
  sources: ObjectReference[];
}

/** Merge MachineConfigs as MergeMachineConfigs does: name order, later wins, last non-empty osImageURL wins. */
export function mergeMachineConfigs(configs: readonly MachineConfig[], options: MergeOptions): MergeResult {
  const sorted = sortByName(configs);
  const ordered = options.reverseOrder ? [...sorted].reverse() : sorted;
  let config: IgnitionConfig = { ignition: { version: '3.2.0' } };
  let fips = false;
  let realtime = false;
  const kernelArguments: string[] = [];
  const extensions: string[] = [];
  let osImageURL = options.defaultOsImageURL;
  let extensionsImage = options.defaultExtensionsImage ?? '';
  for (const mc of ordered) {
    const spec = mc.spec ?? {};
    if (spec.config) config = mergeIgnition(config, spec.config);
    if (spec.fips) fips = true;
    if (spec.kernelType === 'realtime') realtime = true;
    kernelArguments.push(...(spec.kernelArguments ?? []));
    extensions.push(...(spec.extensions ?? []));
    if (spec.osImageURL) osImageURL = spec.osImageURL;
    if (spec.baseOSExtensionsContainerImage) extensionsImage = spec.baseOSExtensionsContainerImage;
  }
  const spec: MachineConfigSpec = {
    config,
    extensions: extensions.length > 0 ? extensions : null,
    fips,
    kernelArguments: kernelArguments.length > 0 ? kernelArguments : null,
    kernelType: realtime ? 'realtime' : 'default',
    osImageURL,
  };
  if (options.includeExtensionsImage) spec.baseOSExtensionsContainerImage = extensionsImage;
  return {
    spec,
    sources: ordered.map((mc) => ({ apiVersion: MC_API_VERSION, kind: 'MachineConfig', name: mc.metadata.name ?? '' })),
  };
}

/** Ignition 3 merge, the parts MachineConfigs use: files by path and units by name are replaced, users merged. */
export function mergeIgnition(parent: IgnitionConfig, child: IgnitionConfig): IgnitionConfig {
  const out: IgnitionConfig = { ...parent, ...child };
  out.ignition = { ...(parent.ignition ?? {}), ...(child.ignition ?? {}) };
  const files = mergeByKey<IgnitionFile>(parent.storage?.files, child.storage?.files, (f) => f.path);
  const units = mergeByKey<IgnitionUnit>(parent.systemd?.units, child.systemd?.units, (u) => u.name);
  if (parent.storage || child.storage) out.storage = { ...(parent.storage ?? {}), ...(child.storage ?? {}), files };
  if (parent.systemd || child.systemd) out.systemd = { ...(parent.systemd ?? {}), ...(child.systemd ?? {}), units };
  if (parent.passwd || child.passwd) {
    const users = new Map<string, { name: string; sshAuthorizedKeys?: string[] }>();
    for (const user of [...(parent.passwd?.users ?? []), ...(child.passwd?.users ?? [])]) {
      const prior = users.get(user.name);
      const keys = [...(prior?.sshAuthorizedKeys ?? []), ...(user.sshAuthorizedKeys ?? [])];
      users.set(user.name, { ...prior, ...user, ...(keys.length > 0 ? { sshAuthorizedKeys: keys } : {}) });
    }
    out.passwd = { ...(parent.passwd ?? {}), ...(child.passwd ?? {}), users: [...users.values()] };
  }
  return out;
}

function mergeByKey<T>(a: T[] | undefined, b: T[] | undefined, key: (item: T) => string): T[] {
  const merged = new Map<string, T>();
  for (const item of [...(a ?? []), ...(b ?? [])]) merged.set(key(item), item);
  return [...merged.values()];
}

/**
 * The canonical text hashed for the rendered name: the spec as JSON with every field present (Go marshals nil
 * slices as null and has no omitempty on these fields), printed as YAML with sorted keys.
 */
export function canonicalSpecYaml(spec: MachineConfigSpec, includeExtensionsImage: boolean): string {
  const canonical: Record<string, unknown> = {
    config: spec.config ?? null,
    extensions: spec.extensions && spec.extensions.length > 0 ? spec.extensions : null,
    fips: spec.fips ?? false,
    kernelArguments: spec.kernelArguments && spec.kernelArguments.length > 0 ? spec.kernelArguments : null,
    kernelType: spec.kernelType ?? '',
    osImageURL: spec.osImageURL ?? '',
  };
  if (includeExtensionsImage) canonical.baseOSExtensionsContainerImage = spec.baseOSExtensionsContainerImage ?? '';
  return stringify(JSON.parse(JSON.stringify(canonical)), { sortMapEntries: true, lineWidth: 0 });
}

export function renderedName(poolName: string, spec: MachineConfigSpec, includeExtensionsImage: boolean): string {
  const digest = createHash('md5').update(RENDER_SALT_HEX, 'hex').update(canonicalSpecYaml(spec, includeExtensionsImage)).digest('hex');
  return `rendered-${poolName}-${digest}`;
}

export interface RenderInput {
  pool: MachineConfigPool;
  configs: readonly MachineConfig[];
  controllerConfig: ControllerConfig;
  profile: Profile;
  build: McoBuild;
  reverseOrder?: boolean;
  /**
   * Fault `sticky-override`: the osImageURL of the pool's current rendered config. When it was a custom image and no
   * config overrides the default any more, the faulty render keeps it.
   */
  stickyOsImageURL?: string;
}

export interface RenderOutput {
  machineConfig: MachineConfig;
  sources: ObjectReference[];
  defaultUrl: string;
  overridden: boolean;
}

/** Build the rendered MachineConfig of a pool (generateRenderedMachineConfig). Throws with the real error texts. */
export function generateRenderedMachineConfig(input: RenderInput): RenderOutput {
  const { pool, configs, controllerConfig: cc, profile, build } = input;
  const poolName = pool.metadata.name ?? '';
  if (configs.length === 0) {
    throw new Error(`no MachineConfigs found matching selector ${formatSelector(pool.spec.machineConfigSelector)}`);
  }
  for (const mc of configs) validateMachineConfig(mc);
  const defaultUrl = defaultOsImage(cc, profile);
  const merged = mergeMachineConfigs(configs, {
    defaultOsImageURL: defaultUrl,
    defaultExtensionsImage: cc.spec.baseOSExtensionsContainerImage,
    includeExtensionsImage: profile.specHasExtensionsImage,
    reverseOrder: input.reverseOrder,
  });
  if (input.stickyOsImageURL && merged.spec.osImageURL === defaultUrl && input.stickyOsImageURL !== defaultUrl) {
    merged.spec.osImageURL = input.stickyOsImageURL;
  }
  const overridden = merged.spec.osImageURL !== defaultUrl;
  const annotations: Record<string, string> = {
    [ANN.generatedByControllerVersion]: build.hash,
    [ANN.releaseImageVersion]: cc.metadata.annotations?.[ANN.releaseImageVersion] ?? '',
  };
  if (overridden && profile.annotateOverriddenOsImage) annotations[ANN.osImageUrlOverridden] = 'true';
  const machineConfig: MachineConfig = {
    apiVersion: MC_API_VERSION,
    kind: 'MachineConfig',
    metadata: {
      name: renderedName(poolName, merged.spec, profile.specHasExtensionsImage),
      annotations,
      ownerReferences: pool.metadata.uid
        ? [
            {
              apiVersion: MC_API_VERSION,
              kind: 'MachineConfigPool',
              name: poolName,
              uid: pool.metadata.uid,
              controller: true,
              blockOwnerDeletion: true,
            },
          ]
        : undefined,
    },
    spec: merged.spec,
  };
  return { machineConfig, sources: merged.sources, defaultUrl, overridden };
}

const KERNEL_TYPES = new Set(['', 'default', 'realtime']);

/** The parts of ValidateMachineConfig a user can trip over with a hand-written MachineConfig. */
export function validateMachineConfig(mc: MachineConfig): void {
  const kernelType = mc.spec?.kernelType ?? '';
  if (!KERNEL_TYPES.has(kernelType)) {
    throw new Error(`kernelType=${kernelType} is invalid`);
  }
  const version = mc.spec?.config?.ignition?.version;
  if (version !== undefined && !/^3\.[0-4]\.\d+$/.test(String(version))) {
    throw new Error(`parsing Ignition config failed: unknown version. Supported spec versions: 2.2, 3.0, 3.1, 3.2`);
  }
}

/** Go's %v of a *metav1.LabelSelector, e.g. `&LabelSelector{MatchLabels:map[string]string{a: b,},MatchExpressions:[]LabelSelectorRequirement{},}`. */
export function formatSelector(selector: MachineConfigPool['spec']['machineConfigSelector']): string {
  if (!selector) return '&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}';
  const labels = Object.entries(selector.matchLabels ?? {})
    .sort(([a], [b]) => compareNames(a, b))
    .map(([k, v]) => `${k}: ${v},`)
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{},}`;
}

/** Label selector matching (matchLabels and the four matchExpressions operators). An empty selector matches all. */
export function selectorMatches(selector: MachineConfigPool['spec']['nodeSelector'], labels: Record<string, string> = {}): boolean {
  if (!selector) return false;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const expr of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, expr.key);
    const value = labels[expr.key];
    switch (expr.operator) {
      case 'In':
        if (!has || !(expr.values ?? []).includes(value!)) return false;
        break;
      case 'NotIn':
        if (has && (expr.values ?? []).includes(value!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

export function isEmptySelector(selector: MachineConfigPool['spec']['nodeSelector']): boolean {
  return !selector || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0);
}
