/**
 * What the build controller decides from a pool's configs, per release (BuildCode; modern-mco.md §1.5, §2.1-2.2):
 * whether a new rendered config needs a new image or reuses the last one, and which image a build starts FROM.
 */
import { semanticEqual } from '../../equality.js';
import type { MachineConfig } from '../types.js';
import type { BuildCode } from '../../profiles/profile.js';

/**
 * ctrlcommon.RequiresRebuild (MCO release-4.20 pkg/controller/common/helpers.go): a different osImageURL, kernelType,
 * extensions or kernel arguments. Unset and empty lists differ as Go's reflect.DeepEqual tells nil from empty.
 */
export function requiresRebuild(oldMC: MachineConfig, newMC: MachineConfig): boolean {
  return (
    (oldMC.spec.osImageURL ?? '') !== (newMC.spec.osImageURL ?? '') ||
    (oldMC.spec.kernelType ?? '') !== (newMC.spec.kernelType ?? '') ||
    !semanticEqual(oldMC.spec.extensions ?? null, newMC.spec.extensions ?? null) ||
    !semanticEqual(oldMC.spec.kernelArguments ?? null, newMC.spec.kernelArguments ?? null)
  );
}

/**
 * Whether moving a layered pool from `oldMC` to `newMC` builds a new image: 4.18-4.19 on any new rendered config
 * (`createNewMachineOSBuildOrReuseExistingForPoolChange`), 4.20+ only when RequiresRebuild says so; otherwise the new
 * MachineOSBuild reuses the last image ("No new image needs to be created, reusing last MOSB").
 */
export function needsNewImage(code: BuildCode, oldMC: MachineConfig, newMC: MachineConfig): boolean {
  if (oldMC.metadata.name === newMC.metadata.name) return false;
  return code.rebuildOn === 'any-change' || requiresRebuild(oldMC, newMC);
}

/** The images a build uses: its base and, where the release has one, the extensions image. */
export interface BuildImages {
  baseOSImage: string;
  extensionsImage: string;
}

/**
 * 4.18-4.21: the osimageurl ConfigMap's baseOSContainerImage and baseOSExtensionsContainerImage (an osImageURL
 * override in a MachineConfig is not the base); 4.22: the rendered config's osImageURL and extensions image.
 * `ignoreOverrideAsBase` (fault build-ignores-override-base) plays the 4.21 rule whatever the release.
 */
export function buildImagesFor(code: BuildCode, osImageUrlConfigMap: Record<string, string> | undefined, rendered: MachineConfig, ignoreOverrideAsBase = false): BuildImages {
  if (code.baseImageFrom === 'rendered-config' && !ignoreOverrideAsBase) {
    return { baseOSImage: rendered.spec.osImageURL ?? '', extensionsImage: rendered.spec.baseOSExtensionsContainerImage ?? '' };
  }
  return { baseOSImage: osImageUrlConfigMap?.baseOSContainerImage ?? '', extensionsImage: osImageUrlConfigMap?.baseOSExtensionsContainerImage ?? '' };
}
