/**
 * The render controller's pure logic: validate a pool's MachineConfigs, merge them in name order and name the result
 * `rendered-<pool>-<md5>`, where the hash covers the merged spec only (spec §3). Metadata never enters the hash, so an
 * upgrade that changes nothing in the spec keeps the rendered name. Checked against the upstream render controller
 * (`RunBootstrap`, both commits) by test/reference/upstream/render.test.ts.
 */
import { createHash } from 'node:crypto';
import { ANN, MC_API_VERSION } from '../constants.js';
import type { McoBehaviour, McoBuild } from '../profiles/index.js';
import { marshalGoYaml, type JsonValue } from './go-yaml.js';
import { checkFileModes, emptyIgnitionConfig, marshalIgnition, mergeIgnitionConfigs, parseIgnition, toSpec32, type IgnitionReader, type ParsedIgnition } from './ignition/index.js';
import { labelSelectorError, selectorMatches } from './label-selector.js';
import type { ControllerConfig, IgnitionConfig, MachineConfig, MachineConfigPool, MachineConfigSpec, ObjectReference } from './types.js';

export { isEmptySelector, selectorMatches } from './label-selector.js';

const KERNEL_DEFAULT = 'default';
const KERNEL_REALTIME = 'realtime';

/**
 * The 80 bytes the render controller mixes into the rendered-name hash before the spec (pkg/controller/render/hash.go,
 * unchanged since 2018). They are a fixed fact of the naming scheme: with them the reference names a rendered config
 * exactly as a real cluster names the same spec.
 */
const RENDER_SALT = Uint8Array.from([
  16, 124, 206, 228, 139, 56, 175, 175, 79, 229, 134, 118, 157, 154, 211, 110, 25, 93, 47, 253, 172, 106, 37, 7, 174, 13, 160, 185, 110, 17, 87, 52,
  219, 131, 12, 206, 218, 141, 116, 135, 188, 181, 192, 151, 233, 62, 126, 165, 64, 83, 179, 119, 15, 168, 208, 197, 146, 107, 58, 227, 133, 188,
  238, 26, 33, 26, 235, 202, 32, 173, 31, 234, 41, 144, 148, 79, 6, 206, 23, 22,
]);

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
export function defaultOsImage(cc: ControllerConfig, mco: McoBehaviour): string {
  return mco.render.newFormatImageByDefault ? cc.spec.baseOSContainerImage : cc.spec.osImageURL;
}

export interface MergeOptions {
  defaultOsImageURL: string;
  defaultExtensionsImage?: string;
  /** Whether the spec carries baseOSExtensionsContainerImage (FIX and later). */
  includeExtensionsImage: boolean;
  /** Fault `render-merge-unsorted`: walk the configs in reverse name order. */
  reverseOrder?: boolean;
  /**
   * release-4.21's MergeMachineConfigs: configs the controller generated (the templates among them) take no part in
   * the osImageURL and extensions-image merge; only user configs override the ControllerConfig's images.
   */
  ignoreGeneratedOsImages?: boolean;
  /** The configs' Ignition already parsed by validation, so the merge does not read them twice. */
  parsed?: ReadonlyMap<MachineConfig, ParsedIgnition>;
  /** The newest Ignition spec the MCO reads (4.13: 3.4, whose kernel arguments join the MachineConfig's). */
  ignitionReader?: IgnitionReader;
  /** 4.13: files without `overwrite` get `overwrite: true`; each kernel argument is kept once. */
  defaultOverwriteAndDedupKargs?: boolean;
}

export interface MergeResult {
  spec: MachineConfigSpec;
  /** The configs in the order they were merged, as pool.spec.configuration.source lists them. */
  sources: ObjectReference[];
}

/**
 * MergeMachineConfigs: name order (stable), the first config's Ignition as the base with every later one merged into
 * it, kernel arguments and extensions concatenated (an empty list, never null), FIPS or realtime from any config, the
 * last non-empty osImageURL (and, at FIX, extensions image) over the ControllerConfig's default.
 */
export function mergeMachineConfigs(configs: readonly MachineConfig[], options: MergeOptions): MergeResult {
  const sorted = sortByName(configs);
  const ordered = options.reverseOrder ? [...sorted].reverse() : sorted;
  let config: Record<string, unknown> | undefined;
  for (const [index, mc] of ordered.entries()) {
    const raw = mc.spec?.config;
    if (raw === undefined || raw === null) {
      if (index === 0) config = emptyIgnitionConfig();
      continue;
    }
    const parsed = toSpec32(options.parsed?.get(mc) ?? parseIgnition(raw, options.ignitionReader));
    config = config === undefined ? parsed : mergeIgnitionConfigs(config, parsed);
  }
  // 4.13: the MCO always overwrites a file, Ignition only when told; a new node must get what the others have
  if (options.defaultOverwriteAndDedupKargs) {
    for (const file of ((config?.storage as Record<string, unknown> | undefined)?.files ?? []) as Array<Record<string, unknown>>) file.overwrite ??= true;
  }
  let fips = false;
  let kernelType = '';
  const kernelArguments: string[] = [];
  const addKernelArgument = (arg: string): void => {
    if (!options.defaultOverwriteAndDedupKargs || !kernelArguments.includes(arg)) kernelArguments.push(arg);
  };
  const extensions: string[] = [];
  for (const mc of ordered) {
    const spec = mc.spec ?? {};
    if (spec.fips) fips = true;
    if (spec.kernelType === KERNEL_REALTIME) kernelType = KERNEL_REALTIME;
    for (const arg of spec.kernelArguments ?? []) addKernelArgument(arg);
    extensions.push(...(spec.extensions ?? []));
  }
  if (options.ignitionReader === '3.4') {
    // ExtractIgnitionKargsFor4_13: a 3.3+ config's kernel arguments join the MachineConfig's, after all of those
    for (const mc of ordered) {
      const raw = mc.spec?.config;
      if (raw === undefined || raw === null) continue;
      const kargs = (options.parsed?.get(mc) ?? parseIgnition(raw, '3.4')).kernelArguments;
      if (!kargs) continue;
      if (kargs.shouldNotExist.length > 0) {
        throw new Error(`Error downgrading KernelArguments for ${mc.metadata.name ?? ''}: Ignition KernelArguments.ShouldNotExist is not supported in this release ( ShouldNotExist: [${kargs.shouldNotExist.join(' ')}] was supplied )`);
      }
      for (const arg of kargs.shouldExist) addKernelArgument(arg);
    }
  }
  if (kernelType === '') kernelType = KERNEL_DEFAULT;
  if (kernelType !== KERNEL_DEFAULT && extensions.includes('kernel-devel')) {
    throw new Error(`installing kernel-devel extension is not supported with kernelType: ${kernelType}`);
  }
  let osImageURL = options.defaultOsImageURL;
  let extensionsImage = options.defaultExtensionsImage ?? '';
  for (const mc of ordered) {
    if (options.ignoreGeneratedOsImages && mc.metadata.annotations?.[ANN.generatedByControllerVersion]) continue;
    if (mc.spec?.osImageURL) osImageURL = mc.spec.osImageURL;
    if (mc.spec?.baseOSExtensionsContainerImage) extensionsImage = mc.spec.baseOSExtensionsContainerImage;
  }
  const spec: MachineConfigSpec = { osImageURL };
  if (options.includeExtensionsImage) spec.baseOSExtensionsContainerImage = extensionsImage;
  Object.assign(spec, { config: marshalIgnition(config ?? emptyIgnitionConfig()) as IgnitionConfig, kernelArguments, extensions, fips, kernelType });
  return {
    spec,
    sources: ordered.map((mc) => ({ apiVersion: MC_API_VERSION, kind: 'MachineConfig', name: mc.metadata.name ?? '' })),
  };
}

/**
 * The text hashed for the rendered name: the spec as the Go struct prints it (every field, no omitempty), through
 * ghodss/yaml. BUG-B's MachineConfigSpec has no baseOSExtensionsContainerImage; FIX's has it.
 */
export function canonicalSpecYaml(spec: MachineConfigSpec, includeExtensionsImage: boolean): string {
  const canonical: Record<string, JsonValue> = {
    osImageURL: spec.osImageURL ?? '',
    config: (spec.config ?? null) as JsonValue,
    kernelArguments: (spec.kernelArguments ?? null) as JsonValue,
    extensions: (spec.extensions ?? null) as JsonValue,
    fips: spec.fips ?? false,
    kernelType: spec.kernelType ?? '',
  };
  if (includeExtensionsImage) canonical.baseOSExtensionsContainerImage = spec.baseOSExtensionsContainerImage ?? '';
  return marshalGoYaml(JSON.parse(JSON.stringify(canonical)) as JsonValue);
}

export function renderedName(poolName: string, spec: MachineConfigSpec, includeExtensionsImage: boolean): string {
  const digest = createHash('md5').update(RENDER_SALT).update(canonicalSpecYaml(spec, includeExtensionsImage)).digest('hex');
  return `rendered-${poolName}-${digest}`;
}

export interface RenderInput {
  pool: MachineConfigPool;
  configs: readonly MachineConfig[];
  controllerConfig: ControllerConfig;
  /** The code of the controller that renders: the MCO of the ControllerConfig's release. */
  mco: McoBehaviour;
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

/**
 * The render controller's sync of one pool: refuses a pool its selector gives nothing (syncMachineConfigPool's
 * text), then builds the rendered MachineConfig. Throws with the real error texts.
 */
export function generateRenderedMachineConfig(input: RenderInput): RenderOutput {
  if (input.configs.length === 0) {
    throw new Error(`no MachineConfigs found matching selector ${formatSelector(input.pool.spec.machineConfigSelector)}`);
  }
  return renderPool(input);
}

/** generateRenderedMachineConfig of upstream: validate every config (in the order given), merge, name, annotate. */
export function renderPool(input: RenderInput): RenderOutput {
  const { pool, configs, controllerConfig: cc, mco, build } = input;
  const poolName = pool.metadata.name ?? '';
  if (mco.render.renderWaitsForRegeneratedConfigs) {
    // OCPBUGS-3821: a template config the new controller has not regenerated yet would render a config of two versions
    for (const mc of configs) {
      const generatedBy = mc.metadata.annotations?.[ANN.generatedByControllerVersion] ?? '';
      if (generatedBy !== '' && generatedBy !== build.hash) {
        throw new Error(`Ignoring MC ${mc.metadata.name ?? ''} generated by older version ${generatedBy} (my version: ${build.hash})`);
      }
    }
  }
  const parsed = new Map<MachineConfig, ParsedIgnition>();
  for (const mc of configs) {
    const ignition = validateMachineConfig(mc, mco.render.ignitionSpec);
    if (ignition) parsed.set(mc, ignition);
  }
  if (configs.length === 0) throw new Error('empty machineconfig object');
  const defaultUrl = defaultOsImage(cc, mco);
  const merged = mergeMachineConfigs(configs, {
    defaultOsImageURL: defaultUrl,
    defaultExtensionsImage: cc.spec.baseOSExtensionsContainerImage,
    includeExtensionsImage: mco.render.specHasExtensionsImage,
    reverseOrder: input.reverseOrder,
    parsed,
    ignitionReader: mco.render.ignitionSpec,
    defaultOverwriteAndDedupKargs: mco.render.mergeDefaultsOverwriteAndDedupsKargs,
    ignoreGeneratedOsImages: !mco.render.generatedConfigsSetOsImage,
  });
  if (input.stickyOsImageURL && merged.spec.osImageURL === defaultUrl && input.stickyOsImageURL !== defaultUrl) {
    merged.spec.osImageURL = input.stickyOsImageURL;
  }
  const overridden = merged.spec.osImageURL !== defaultUrl;
  const annotations: Record<string, string> = {
    [ANN.generatedByControllerVersion]: build.hash,
    [ANN.releaseImageVersion]: cc.metadata.annotations?.[ANN.releaseImageVersion] ?? '',
  };
  if (overridden && mco.render.annotateOverriddenOsImage) annotations[ANN.osImageUrlOverridden] = 'true';
  const machineConfig: MachineConfig = {
    apiVersion: MC_API_VERSION,
    kind: 'MachineConfig',
    metadata: {
      name: renderedName(poolName, merged.spec, mco.render.specHasExtensionsImage),
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

export interface BootstrapInput {
  pools: readonly MachineConfigPool[];
  configs: readonly MachineConfig[];
  controllerConfig: ControllerConfig;
  mco: McoBehaviour;
  build: McoBuild;
}

/**
 * RunBootstrap: every pool in turn, its configs picked by its machineConfigSelector (a missing selector picks
 * nothing, an empty one everything), rendered; the first failure ends the run with its error.
 */
export function runBootstrap(input: BootstrapInput): MachineConfig[] {
  const rendered: MachineConfig[] = [];
  for (const pool of input.pools) {
    const selector = pool.spec?.machineConfigSelector;
    const invalid = labelSelectorError(selector, input.mco.render.apimachinery);
    if (invalid) throw new Error(`invalid label selector: ${invalid}`);
    const empty = selector !== undefined && selector !== null && isEmptySelectorValue(selector);
    const configs = empty ? [] : input.configs.filter((mc) => selectorMatches(selector, mc.metadata.labels ?? {}));
    if (!empty && configs.length === 0) throw new Error(`couldn't find any MachineConfigs for pool: ${pool.metadata.name ?? ''}`);
    rendered.push(renderPool({ pool, configs, controllerConfig: input.controllerConfig, mco: input.mco, build: input.build }).machineConfig);
  }
  return rendered;
}

function isEmptySelectorValue(selector: NonNullable<MachineConfigPool['spec']['machineConfigSelector']>): boolean {
  return Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
}

const KERNEL_TYPES = new Set(['', KERNEL_DEFAULT, KERNEL_REALTIME]);

/**
 * ValidateMachineConfig: the kernel type, then the Ignition config (parsed and checked like the merge will read it).
 * Returns the parsed Ignition, if the config has one.
 */
export function validateMachineConfig(mc: MachineConfig, reader: IgnitionReader = '3.2'): ParsedIgnition | undefined {
  const kernelType = mc.spec?.kernelType ?? '';
  if (!KERNEL_TYPES.has(kernelType)) {
    throw new Error(`kernelType=${kernelType} is invalid`);
  }
  const raw = mc.spec?.config;
  if (raw === undefined || raw === null) return undefined;
  const parsed = parseIgnition(raw, reader);
  checkFileModes(parsed);
  return parsed;
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

