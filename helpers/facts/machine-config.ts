/** Rendered MachineConfigs: the OS image they carry and the release they were rendered for. */
import { RenderedAnnotations, type MachineConfig } from '../types.js';
import { fails, holds, type Fact } from './fact.js';

/** The release a rendered config was made for (annotation release-image-version), if it says. */
export function renderedRelease(rendered: MachineConfig | undefined): string | undefined {
  return rendered?.metadata.annotations?.[RenderedAnnotations.releaseImageVersion];
}

/** The rendered config was made for the release. */
export function renderedForRelease(rendered: MachineConfig | undefined, name: string | undefined, version: string): Fact {
  const actual = renderedRelease(rendered);
  const shown = rendered?.metadata.name ?? name ?? '(none)';
  if (actual === version) return holds(`rendered config ${shown} is for release ${version}`);
  return fails(`rendered config ${shown} is for release ${actual ?? (rendered ? '(not annotated)' : 'unknown')}, expected ${version}`);
}

/** The rendered config carries the OS image. */
export function renderedOsImage(rendered: MachineConfig, image: string): Fact {
  const actual = rendered.spec?.osImageURL;
  if (actual === image) return holds(`rendered config ${rendered.metadata.name} has osImageURL ${image}`);
  return fails(`rendered config ${rendered.metadata.name} has osImageURL ${actual ?? '(empty)'}, expected ${image}`);
}
