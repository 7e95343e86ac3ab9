// Where a run's layered images go: --image-repo, else the repository the reference cluster publishes in its info
// ConfigMap. Also the one image the suite means never to exist there (spec 06's unpullable image).
import type { TargetCapabilities } from '../capabilities.js';
import type { TargetConfig } from '../target.js';
import { withoutTag } from './naming.js';

export function imageRepository(targetConfig: Pick<TargetConfig, 'imageRepo'>, caps: Pick<TargetCapabilities, 'imageRepo'>): string {
  const repo = targetConfig.imageRepo ?? caps.imageRepo;
  if (!repo) {
    throw new Error(
      'no image repository for the layered OS image: pass --image-repo <registry>/<namespace>/<name> (a repository the cluster can pull from, with push credentials in --pull-secret)',
    );
  }
  return withoutTag(repo);
}

/** A pullspec in the run's repository that cannot be pulled: a digest nothing was ever pushed as. */
export function unpullableImage(targetConfig: Pick<TargetConfig, 'imageRepo'>, caps: Pick<TargetCapabilities, 'imageRepo'>): string {
  return `${imageRepository(targetConfig, caps)}@sha256:${'0'.repeat(63)}1`;
}
