/**
 * Seeded render inputs for the differential test: the reference's own template MachineConfigs for each role plus
 * user MachineConfigs named before, between and after them, with osImageURL overrides (empty, by tag, by digest),
 * kernel arguments with duplicates, extensions, FIPS, every kernelType, Ignition configs in 3.2/3.1/3.0/2.2 whose files,
 * units and users overlap the templates' and each other's, and a share of invalid ones; one to three pools with
 * matchLabels or matchExpressions selectors, pools that select nothing, and a few invalid selectors.
 */
import { gzipSync } from 'node:zlib';
import { ANN, LABEL } from '../../../../reference/constants.js';
import { templateMachineConfigs, installerSshMachineConfig } from '../../../../reference/mco/templates.js';
import type { ControllerConfig, MachineConfig, MachineConfigPool } from '../../../../reference/mco/types.js';
import { mcoBuildFor } from '../../../../reference/mco/version.js';
import type { Rng } from '../../../../reference/rng.js';
import type { UpstreamCommit } from './oracle.js';

export interface RenderCase {
  pools: MachineConfigPool[];
  machineConfigs: MachineConfig[];
  /** In the reference's (FIX) field names; translated per commit for the oracle. */
  controllerConfig: ControllerConfig;
  controllerVersion: string;
}

type Json = Record<string, unknown>;

class Draw {
  constructor(private readonly rng: Rng) {}
  roll(): number {
    return this.rng.next();
  }
  chance(p: number): boolean {
    return this.rng.next() < p;
  }
  int(min: number, max: number): number {
    return this.rng.int(min, max);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.rng.int(0, items.length - 1)]!;
  }
  some<T>(items: readonly T[], max: number): T[] {
    return Array.from({ length: this.int(0, max) }, () => this.pick(items));
  }
  hex(n: number): string {
    return Array.from({ length: n }, () => '0123456789abcdef'[this.int(0, 15)]).join('');
  }
}

const ROLES = ['master', 'worker', 'infra'] as const;

/** Texts that exercise the YAML printer: quoting, folding past 80 columns, block scalars, special characters. */
function text(d: Draw): string {
  const words = ['alpha', 'beta', 'on', 'yes', '1', '0x1F', '1e3', '#x', 'a: b', '- c', "it's", '"q"', 'tab\there', 'üñí', '~', 'null', '2022-09-08', '12:30', '', '   ', 'x'];
  const n = d.int(0, 24);
  let out = Array.from({ length: n }, () => d.pick(words)).join(d.pick([' ', ' ', '\n', '  ', '']));
  if (d.chance(0.2)) out = ` ${out}`;
  if (d.chance(0.2)) out += d.pick(['\n', '\n\n', ' ', '\n ']);
  return out;
}

function dataUrl(d: Draw): string {
  return `data:,${encodeURIComponent(text(d))}`;
}

/** A file marked gzip holds gzip data, as Ignition writes it: a config marked gzip over plain text fails on every node. */
function gzipDataUrl(d: Draw): string {
  return `data:;base64,${gzipSync(new Uint8Array(Buffer.from(text(d)))).toString('base64')}`;
}

function fileContents(d: Draw): Json {
  if (d.chance(0.9)) return { source: dataUrl(d) };
  return d.chance(0.5) ? { source: dataUrl(d), compression: '' } : { source: gzipDataUrl(d), compression: 'gzip' };
}

const FILE_PATHS = ['/etc/a', '/etc/b.conf', '/etc/kubernetes/kubelet.conf', '/etc/containers/storage.conf', '/etc/sysctl.d/inotify.conf', '/var/lib/x', '/etc/d'];
const UNIT_NAMES = ['a.service', 'kubelet.service', 'machine-config-daemon-firstboot.service', 'b.timer', 'c.mount', 'd.socket'];

function unitContents(d: Draw): string {
  const lines = ['[Unit]', `Description=${text(d).replace(/\n|\[/g, ' ')}`, '[Service]', 'ExecStart=/usr/bin/true --long-argument-to-pass-eighty-columns value value value value value', '[Install]', 'WantedBy=multi-user.target'];
  const picked = lines.slice(0, d.int(1, lines.length));
  return picked.join('\n') + (d.chance(0.8) ? '\n' : '');
}

function file(d: Draw, spec2: boolean): Json {
  const out: Json = { path: d.pick(FILE_PATHS) };
  if (spec2) out.filesystem = 'root';
  if (d.chance(0.85) || spec2) out.contents = fileContents(d);
  if (d.chance(0.7) || spec2) out.mode = d.pick([420, 384, 493, 511, 256]);
  if (d.chance(0.3)) out.overwrite = out.contents ? d.chance(0.5) : false;
  if (!spec2 && d.chance(0.1)) out.user = { name: d.pick(['root', 'core']) };
  if (!spec2 && d.chance(0.05)) out.group = { id: d.int(0, 1000) };
  return out;
}

function unit(d: Draw): Json {
  const out: Json = { name: d.pick(UNIT_NAMES) };
  if (d.chance(0.7)) out.contents = unitContents(d);
  if (d.chance(0.5)) out.enabled = d.chance(0.7);
  if (d.chance(0.1)) out.mask = d.chance(0.5);
  if (d.chance(0.2)) out.dropins = [{ name: d.pick(['10-a.conf', '20-b.conf']), contents: unitContents(d) }];
  return out;
}

function user(d: Draw): Json {
  const key = (): string => `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${d.hex(d.int(8, 60))} ${d.pick(['user@host', 'a b c', 'x'])}`;
  const out: Json = { name: d.pick(['core', 'core', 'admin']) };
  const keys = Array.from({ length: d.int(0, 3) }, key);
  if (keys.length > 0 || d.chance(0.2)) out.sshAuthorizedKeys = [...new Set(keys)];
  if (d.chance(0.1)) out.passwordHash = `$6$${d.hex(16)}`;
  return out;
}

function uniqueBy(items: Json[], key: string): Json[] {
  const seen = new Set<unknown>();
  return items.filter((item) => (seen.has(item[key]) ? false : (seen.add(item[key]), true)));
}

/** A valid Ignition config in the given spec version. */
function ignition(d: Draw, version: string): Json {
  const spec2 = version.startsWith('2.');
  const config: Json = { ignition: { version } };
  const files = uniqueBy(Array.from({ length: d.int(0, 3) }, () => file(d, spec2)), 'path');
  const storage: Json = {};
  if (files.length > 0) storage.files = files;
  if (!spec2 && d.chance(0.15)) {
    const taken = new Set(files.map((f) => f.path));
    const free = ['/etc/dir', '/etc/link', '/etc/b.conf', '/var/lib/x'].filter((p) => !taken.has(p));
    if (free.length > 0) storage.directories = [{ path: free[0], ...(d.chance(0.5) ? { mode: 493 } : {}) }];
    if (free.length > 1) storage.links = [{ path: free[1], target: d.pick(['/etc/a', '/usr/bin/true']), ...(d.chance(0.3) ? { hard: d.chance(0.5) } : {}) }];
  }
  if (Object.keys(storage).length > 0 || d.chance(0.05)) config.storage = storage;
  const units = uniqueBy(Array.from({ length: d.int(0, 2) }, () => unit(d)), 'name');
  if (spec2) for (const u of units) delete u.dropins;
  if (units.length > 0 || d.chance(0.05)) config.systemd = { units };
  const users = uniqueBy(Array.from({ length: d.int(0, 1) }, () => user(d)), 'name');
  if (users.length > 0) config.passwd = { users };
  // spec 3.3 and 3.4 (read by 4.13's MCO only): kernel arguments, at times repeated or to be removed
  if ((version === '3.3.0' || version === '3.4.0') && d.chance(0.6)) {
    const kargs: Json = { shouldExist: [...new Set(d.some(KARGS, 3))] };
    if (d.chance(0.1)) (kargs.shouldExist as string[]).push(d.pick(KARGS));
    if (d.chance(0.1)) kargs.shouldNotExist = d.some(['quiet', 'nosmt'], 2);
    config.kernelArguments = kargs;
  }
  return config;
}

const KARGS = ['nosmt', 'a=b', 'mitigations=off', 'z=1', 'ign.karg=1'];

/** One way an Ignition config is wrong, each with the check upstream reports it by. */
function breakIgnition(d: Draw, config: Json): unknown {
  const files = () => (((config.storage ??= {}) as Json).files ??= []) as Json[];
  const units = () => (((config.systemd ??= {}) as Json).units ??= []) as Json[];
  switch (d.int(0, 15)) {
    case 0:
      files().push({ path: d.pick(['etc/rel', '', 'x']) });
      break;
    case 1:
      files().push({ path: d.pick(['/etc//x', '/etc/../x', '/etc/x/']) });
      break;
    case 2:
      units().push({ name: d.pick(['x.foo', 'noext', 'a.service.bak']) });
      break;
    case 3:
      units().push({ name: 'z.service', dropins: [{ name: d.pick(['x', 'x.txt']) }] });
      break;
    case 4: {
      const path = d.pick(FILE_PATHS);
      files().push({ path }, { path, mode: 420 });
      break;
    }
    case 5:
      units().push({ name: 'dup.service' }, { name: 'dup.service', enabled: true });
      break;
    case 6:
      files().push({ path: '/etc/typed', mode: d.pick(['420', true, 4.5]) });
      break;
    case 7:
      (config.ignition as Json).version = d.pick([3, true]);
      break;
    case 8:
      files().push({ path: '/etc/nosource', overwrite: true });
      break;
    case 9:
      files().push({ path: '/etc/z', contents: { source: 'data:,x', compression: d.pick(['bz', 'xz', 'GZIP']) } });
      break;
    case 10:
      files().push({ path: '/etc/z', contents: { source: d.pick(['ftp://h/x', '/rel/x', 'data:,a b', 'data:foo,bar']) } });
      break;
    case 11:
      files().push({ path: '/etc/special', mode: d.pick([0o4755, 0o2755, 0o1777]), contents: { source: 'data:,x' } });
      break;
    case 12:
      files().push({ path: '/etc/illegal', mode: d.pick([0o10000, -1]) });
      break;
    case 13:
      return d.pick(['a string', 7, [], true]);
    case 14:
      (config.ignition as Json).version = d.pick(['3.3.0', '3.4.0', '4.0.0', '1.0.0', '2.3.0', '', 'x']);
      break;
    default:
      units().push({ name: 'broken.service', contents: '[Unit\nDescription=x\n' });
  }
  return config;
}

function osImage(d: Draw, cc: ControllerConfig): string {
  return d.pick([
    '',
    `quay.io/user/layered:${d.pick(['latest', 'v1', 'mco_layering'])}`,
    `quay.io/user/layered@sha256:${d.hex(64)}`,
    cc.spec.baseOSContainerImage,
    cc.spec.osImageURL,
    `registry.local:5000/ocp-e2e/os:${d.hex(6)}`,
  ]);
}

const USER_NAMES = ['00-aaa', '00-', '000-early', '00-ROLE-a', '00-ROLE', '01-ROLE-a', '01-ROLE-kubelet-x', '01-ROLE-container-runtime', '50-ROLE-custom', '97-ROLE-z', '99-ROLE-zzz', 'A-upper', 'tc-54183-new-os-image-upgrade-ROLE', 'zz-last', '99-ROLE-generated-registries'];

/** `newestSpec`: the newest Ignition spec the commit's MCO reads; configs are written in it too. */
function userMachineConfig(d: Draw, role: string, cc: ControllerConfig, index: number, invalidShare: number, newestSpec: '3.2' | '3.4' = '3.2'): MachineConfig {
  const spec: Json = {};
  if (d.chance(0.45)) spec.osImageURL = osImage(d, cc);
  if (d.chance(0.3)) spec.kernelArguments = d.some(['nosmt', 'a=b', 'a=b', 'mitigations=off', 'x y', 'z=1', ''], 4);
  if (d.chance(0.2)) spec.extensions = d.some(['usbguard', 'kerberos', 'kernel-devel', 'usbguard', 'wasm'], 3);
  if (d.chance(0.15)) spec.fips = d.chance(0.6);
  if (d.chance(0.3)) spec.kernelType = d.chance(invalidShare) ? d.pick(['rt', 'Realtime', 'default ']) : d.pick(['', 'default', 'realtime']);
  if (d.chance(0.1)) spec.baseOSExtensionsContainerImage = `quay.io/user/ext@sha256:${d.hex(64)}`;
  if (d.chance(0.7)) {
    const version = newestSpec === '3.4' ? d.pick(['3.4.0', '3.4.0', '3.3.0', '3.2.0', '3.2.0', '3.1.0', '3.0.0', '2.2.0']) : d.pick(['3.2.0', '3.2.0', '3.2.0', '3.1.0', '3.0.0', '2.2.0']);
    const config = ignition(d, version);
    spec.config = d.chance(invalidShare) && !version.startsWith('2.') ? breakIgnition(d, config) : config;
  } else if (d.chance(0.2)) {
    spec.config = null;
  }
  const name = d.pick(USER_NAMES).replace('ROLE', role) + (d.chance(0.3) ? `-${index}` : '');
  const labels: Record<string, string> = { [LABEL.role]: role };
  if (d.chance(0.2)) labels.extra = d.pick(['a', 'b']);
  return { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig', metadata: { name, labels }, spec: spec as MachineConfig['spec'] };
}

function pool(d: Draw, name: string, invalidShare: number): MachineConfigPool {
  const roleSelector = { matchLabels: { [LABEL.role]: name } };
  let selector: MachineConfigPool['spec']['machineConfigSelector'] | null = roleSelector;
  const roll = d.roll();
  if (roll < 0.15) selector = { matchExpressions: [{ key: LABEL.role, operator: 'In', values: [name, d.pick([...ROLES])] }] };
  else if (roll < 0.2) selector = { matchLabels: { [LABEL.role]: name, extra: d.pick(['a', 'b']) } };
  else if (roll < 0.24) selector = { matchLabels: { [LABEL.role]: 'nothing-matches' } };
  else if (roll < 0.26) selector = { matchExpressions: [{ key: 'extra', operator: d.pick(['Exists', 'DoesNotExist']) }, { key: LABEL.role, operator: 'NotIn', values: ['infra'] }] };
  else if (roll < 0.26 + invalidShare / 4) selector = d.pick<MachineConfigPool['spec']['machineConfigSelector'] | null>([undefined, {}, null]);
  else if (roll < 0.26 + invalidShare / 2) {
    selector = d.pick([
      { matchExpressions: [{ key: LABEL.role, operator: 'Foo', values: [name] }] },
      { matchExpressions: [{ key: LABEL.role, operator: 'In', values: [] }] },
      { matchExpressions: [{ key: LABEL.role, operator: 'Exists', values: [name] }] },
      { matchLabels: { [LABEL.role]: 'bad value!' } },
    ]);
  }
  const spec: MachineConfigPool['spec'] = {};
  if (selector !== undefined) spec.machineConfigSelector = selector as MachineConfigPool['spec']['machineConfigSelector'];
  return { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfigPool', metadata: { name }, spec };
}

/** One render case; `invalidShare` is the probability of each invalid choice. */
export function renderCase(rng: Rng, commit: UpstreamCommit, invalidShare = 0.04): RenderCase {
  const d = new Draw(rng);
  const release = d.pick(commit.releases);
  const build = mcoBuildFor(release, commit.profile);
  const cc: ControllerConfig = {
    metadata: { name: 'machine-config-controller', annotations: d.chance(0.95) ? { [ANN.releaseImageVersion]: release } : {} },
    spec: {
      osImageURL: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${d.hex(64)}`,
      baseOSContainerImage: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${d.hex(64)}`,
      baseOSExtensionsContainerImage: d.chance(0.8) ? `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${d.hex(64)}` : '',
      releaseImage: `quay.io/openshift-release-dev/ocp-release:${release}`,
    },
  };
  const roll = d.roll();
  const roles = roll < 0.3 ? ['worker'] : roll < 0.5 ? ['master'] : roll < 0.6 ? ['infra'] : roll < 0.88 ? ['master', 'worker'] : ['master', 'worker', 'infra'];
  const machineConfigs: MachineConfig[] = [];
  for (const role of roles) {
    // the full template set in a third of the cases; otherwise a part of it (the oracle's time grows with the number of
    // configs, about 1-2 ms each, and the CI run must stay short)
    const full = d.chance(0.3);
    machineConfigs.push(...templateMachineConfigs(role, cc, commit.code, build).filter((mc) => full || /^0[01]-/.test(mc.metadata.name ?? '') ? full || d.chance(0.7) : d.chance(0.2)));
    if (d.chance(0.3)) machineConfigs.push(installerSshMachineConfig(role));
  }
  const users = d.int(0, 4);
  for (let i = 0; i < users; i++) machineConfigs.push(userMachineConfig(d, d.pick(roles), cc, i, invalidShare, commit.code.render.ignitionSpec));
  // 4.13 waits for configs of an older controller (OCPBUGS-3821): now and then a template not yet regenerated
  if (commit.code.render.renderWaitsForRegeneratedConfigs && d.chance(0.04)) {
    const template = machineConfigs.find((mc) => mc.metadata.annotations?.[ANN.generatedByControllerVersion]);
    if (template) template.metadata.annotations![ANN.generatedByControllerVersion] = mcoBuildFor(d.pick(['4.12.0', '4.12.9']), commit.profile).hash;
  }
  // names must be unique, as in a cluster; the later one of a clash is dropped
  const seen = new Set<string>();
  const unique = machineConfigs.filter((mc) => (seen.has(mc.metadata.name!) ? false : (seen.add(mc.metadata.name!), true)));
  // the controller lists configs in no particular order
  for (let i = unique.length - 1; i > 0; i--) {
    const j = d.int(0, i);
    [unique[i], unique[j]] = [unique[j]!, unique[i]!];
  }
  const pools = roles.map((role) => pool(d, role, invalidShare));
  if (d.chance(0.05)) pools.push(pool(d, 'custom-empty', invalidShare));
  return { pools, machineConfigs: unique, controllerConfig: cc, controllerVersion: build.hash };
}

/** The case as the oracle of a commit reads it: the ControllerConfig's base OS fields under that commit's names. */
export function oracleRenderInput(c: RenderCase, commit: UpstreamCommit): unknown {
  const { baseOSContainerImage, baseOSExtensionsContainerImage, ...rest } = c.controllerConfig.spec;
  return {
    pools: c.pools,
    machineConfigs: c.machineConfigs,
    controllerConfig: { ...c.controllerConfig, spec: { ...rest, [commit.baseOSField]: baseOSContainerImage, [commit.baseOSExtensionsField]: baseOSExtensionsContainerImage ?? '' } },
    controllerVersion: c.controllerVersion,
  };
}

/**
 * User MachineConfigs to apply to a running cluster by the API: the same variety, but only ones that render (a broken
 * one would stop the pool), with no osImageURL (the nodes would try to boot it), without kernel-devel (which the
 * realtime kernel of another config would refuse) and without extensions the 4.12 daemon does not know (it refuses
 * them, "invalid extensions found", and the node stays Degraded: the render is fine, the roll-out never ends).
 */
export function clusterUserMachineConfigs(rng: Rng, count: number, accepts: (mc: MachineConfig) => boolean): MachineConfig[] {
  const d = new Draw(rng);
  const cc: ControllerConfig = { metadata: { name: 'machine-config-controller' }, spec: { osImageURL: '', baseOSContainerImage: '', releaseImage: '' } };
  const out: MachineConfig[] = [];
  for (let attempt = 0; out.length < count && attempt < count * 20; attempt++) {
    const role = d.pick(['master', 'worker']);
    const mc = userMachineConfig(d, role, cc, attempt, 0);
    delete mc.spec.osImageURL;
    delete mc.spec.baseOSExtensionsContainerImage;
    if (mc.spec.config === null) delete mc.spec.config; // the CRD wants an object there
    if (mc.spec.extensions) mc.spec.extensions = mc.spec.extensions.filter((e) => e !== 'kernel-devel' && e !== 'wasm');
    // no compression: Ignition's merge keeps an earlier config's `compression: gzip` under a later one's plain source
    // for the same path, and the daemon then cannot decode the file (the render is right, the roll-out never ends)
    for (const file of ((mc.spec.config as Json | undefined)?.storage as Json | undefined)?.files as Json[] | undefined ?? []) {
      if (file.contents) delete (file.contents as Json).compression;
    }
    mc.metadata.name = `50-e2e-extra-${out.length}-${role}`;
    if (accepts(mc)) out.push(mc);
  }
  return out;
}
