/**
 * Whether a new rendered config of an image-mode pool got a new image or the last one, judged from the suite's own
 * release rules (helpers/releases: `imageModeNewImageOn`). Where only the OS image, kernel type, extensions or kernel
 * arguments need one (4.20+), a config change without them gets a MachineOSBuild of its own, made Succeeded at once
 * with the last build's image and no build Job (MCO release-4.20 pkg/controller/build/reconciler.go
 * `reuseImageForNewMOSB`: it copies `digestedImagePushSpec` and sets the succeeded conditions, nothing else, and the
 * MachineOSConfig's current-build annotation moves to it). Where every new rendered config builds (4.18, 4.19), the
 * build runs its Job and pushes a new image.
 */
import { expect } from 'chai';
import type { ReleaseRules } from '../releases/rules.js';
import { parameter, step } from '../report.js';
import type { RolledOutBuild } from './flow.js';

/** What the release does for a config change that touches none of the image's inputs. */
export function expectsReuse(rules: ReleaseRules): boolean {
  return rules.imageModeNewImageOn === 'image-inputs-change';
}

/** The build of the changed config reused `before`'s image (no Job ran), or built a new one, as the release does. */
export async function checkImageReuse(rules: ReleaseRules, change: string, before: RolledOutBuild, after: RolledOutBuild): Promise<void> {
  const name = after.build.metadata.name ?? '?';
  const job = after.build.status?.builder?.job?.name;
  await parameter(`image for ${after.rendered}`, after.image);
  if (expectsReuse(rules)) {
    await step(`machineosbuild/${name} of ${after.rendered} reuses the image of machineosbuild/${before.build.metadata.name} (${change} needs no new image on OpenShift ${rules.release})`, async () => {
      const why = `on OpenShift ${rules.release} only a change of the OS image, kernel type, extensions or kernel arguments builds a new image, and ${change} is none of them`;
      if (after.image !== before.image || job !== undefined) {
        expect.fail(`machineosbuild/${name} of ${after.rendered} ${job ? `ran build job ${job} and ` : ''}gave the pool image ${after.image}; expected it to reuse ${before.image}, the image of machineosbuild/${before.build.metadata.name}, without a build job (${why})`);
      }
    });
    return;
  }
  await step(`machineosbuild/${name} of ${after.rendered} built a new image (on OpenShift ${rules.release} every new rendered config is built)`, async () => {
    if (after.image === before.image || job === undefined) {
      expect.fail(`machineosbuild/${name} of ${after.rendered} gave the pool image ${after.image} ${job ? `from build job ${job}` : 'without a build job'}; expected a new image from a build job of its own, not ${before.image} of machineosbuild/${before.build.metadata.name} (on OpenShift ${rules.release} ${change} builds the pool's image again)`);
    }
  });
}
