/**
 * A MachineOSBuild's name and push target (MCO pkg/controller/build/buildrequest/machineosbuild.go `NewMachineOSBuild`,
 * `objectsForHash`; modern-mco.md §1.3): `<mosc>-<md5>` over the pool's `spec.configuration` (rendered name and
 * sources), the MachineOSConfig's spec and the OS-image inputs, and the push spec with its tag replaced by that name.
 *
 * The OS-image inputs per release (BuildCode.baseImageFrom): up to 4.21 the four keys of the machine-config-osimageurl
 * ConfigMap (ctrlcommon.GetOSImageURLConfig); from 4.22 the same four fields filled from the rendered config (its
 * osImageURL as the base, its extensions image, an empty osImageURL, its release-image-version annotation).
 *
 * Upstream hashes a salted Go YAML of those objects; the reference hashes a Go-style YAML of the same objects with a
 * salt of its own, so a name is not upstream's byte for byte but changes exactly when upstream's does.
 */
import { createHash } from 'node:crypto';
import { ANN } from '../../constants.js';
import { marshalGoYaml, type JsonValue } from '../go-yaml.js';
import type { MachineConfig, MachineConfigPool } from '../types.js';
import type { BuildCode } from '../../profiles/profile.js';
import type { MachineOSConfig } from './types.js';

/** The reference's own salt (upstream's is 80 random bytes of its own). */
const SALT = 'ocp-e2e reference: MachineOSBuild name';

/** The OS-image part of the hash: ctrlcommon.OSImageURLConfig's four fields. */
export interface OsImageInputs {
  baseOSContainerImage: string;
  baseOSExtensionsContainerImage: string;
  osImageURL: string;
  releaseVersion: string;
}

/** 4.18-4.21: the four keys as the machine-config-osimageurl ConfigMap holds them. */
export function osImageInputsFromConfigMap(data: Record<string, string> | undefined): OsImageInputs {
  return {
    baseOSContainerImage: data?.baseOSContainerImage ?? '',
    baseOSExtensionsContainerImage: data?.baseOSExtensionsContainerImage ?? '',
    osImageURL: data?.osImageURL ?? '',
    releaseVersion: data?.releaseVersion ?? '',
  };
}

/** 4.22: the same fields from the rendered config; osImageURL stays empty as upstream keeps it for a stable hash. */
export function osImageInputsFromRenderedConfig(mc: MachineConfig): OsImageInputs {
  return {
    baseOSContainerImage: mc.spec.osImageURL ?? '',
    baseOSExtensionsContainerImage: mc.spec.baseOSExtensionsContainerImage ?? '',
    osImageURL: '',
    releaseVersion: mc.metadata.annotations?.[ANN.releaseImageVersion] ?? '',
  };
}

/** What the OS-image inputs are read from, per release. */
export function osImageInputsFor(code: BuildCode, sources: { osImageUrlConfigMap?: Record<string, string>; renderedConfig?: MachineConfig }): OsImageInputs | undefined {
  if (code.baseImageFrom === 'rendered-config') return sources.renderedConfig ? osImageInputsFromRenderedConfig(sources.renderedConfig) : undefined;
  return sources.osImageUrlConfigMap ? osImageInputsFromConfigMap(sources.osImageUrlConfigMap) : undefined;
}

/** `<mosc>-<md5>`. Throws, as upstream's validateForHash does, when the pool is not the MachineOSConfig's. */
export function machineOSBuildName(mosc: MachineOSConfig, pool: MachineConfigPool, os: OsImageInputs): string {
  if (pool.metadata.name !== mosc.spec.machineConfigPool.name) {
    throw new Error(`name mismatch, MachineConfigPool has "${pool.metadata.name}", MachineOSConfig has "${mosc.spec.machineConfigPool.name}"`);
  }
  const hash = createHash('md5').update(SALT);
  const objects = [pool.spec.configuration ?? {}, mosc.spec, { ...os }] as unknown as JsonValue[];
  for (const object of objects) hash.update(marshalGoYaml(object));
  return `${mosc.metadata.name}-${hash.digest('hex')}`;
}

/** The push spec with its tag (or digest) replaced by `tag`, as distribution/reference.WithTag over ParseNamed does. */
export function withTag(pushSpec: string, tag: string): string {
  const at = pushSpec.indexOf('@');
  let name = at >= 0 ? pushSpec.slice(0, at) : pushSpec;
  const colon = name.lastIndexOf(':');
  if (colon > name.lastIndexOf('/')) name = name.slice(0, colon);
  return `${name}:${tag}`;
}

/** The repository part of a pullspec (`host/ns/name`), to name a pushed digest `repo@sha256:…`. */
export function repositoryOf(pullspec: string): string {
  return withTag(pullspec, 'x').slice(0, -2);
}
