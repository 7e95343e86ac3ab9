/**
 * The OS image a pool runs when nobody overrides it: the one the MCO of the cluster's release picks. Which of the
 * release's images that is depends on the MCO's code, not on the payload: since the "new format" default
 * (UseNewFormatImageByDefault, in 4.12 GA) it is rhel-coreos-8 (rhel-coreos from 4.13); before it (the report's
 * nightly) it is machine-os-content. Up to 4.20 the template controller writes its pick into the template
 * MachineConfig `00-<role>`, so the suite reads it there, as a user would; from 4.21 the templates carry no osImageURL
 * and the render takes the ControllerConfig's base OS image, so the suite reads that. Either way it checks that the
 * image is one of the release's own OS images: a test of "the pool runs the release OS image" must not expect an
 * image the cluster's MCO never uses.
 */
import type { FlowSession } from './flows.js';
import { ReleaseImageTagNotFoundError } from './images/release-info.js';
import { releaseImageTaggedOf, BASE_OS_TAG, MACHINE_OS_CONTENT_TAG } from './release.js';
import { attachText, step } from './report.js';

export interface DefaultOsImage {
  /** The pullspec the MCO gives the pool: its template's (to 4.20) or its ControllerConfig's (4.21+). */
  image: string;
  /** Which of the release's images it is, by the release's name for it: rhel-coreos-8 (rhel-coreos from 4.13) or machine-os-content. */
  tag: string;
}

/**
 * The OS image the MCO gives a pool of `role` without an osImageURL override, checked against the release
 * `releaseImage` (the cluster's current one: before an upgrade its starting release, after it the new one).
 */
export async function findDefaultOsImage(session: FlowSession, releaseImage: string, role = 'worker'): Promise<DefaultOsImage> {
  const release = session.release();
  const template = `00-${role}`;
  const source = release.rules.render.templatesCarryOsImage ? `MachineConfig ${template}` : 'controllerconfig/machine-config-controller spec.baseOSContainerImage';
  return step(`find the OS image the MCO gives ${role} pools without an override (${source})`, async () => {
    const image = release.rules.render.templatesCarryOsImage
      ? (await session.cluster.getMachineConfig(template)).spec?.osImageURL
      : (await session.cluster.getControllerConfig()).spec?.baseOSContainerImage;
    if (!image) {
      throw new Error(
        release.rules.render.templatesCarryOsImage
          ? `MachineConfig ${template} has no spec.osImageURL: the template controller of OpenShift ${release.rules.release} writes the release's default OS image there, so the MCO has not rendered its templates`
          : `${source} is empty: from OpenShift 4.21 the MCO renders pools from it, so the operator has not synced this release yet`,
      );
    }
    const candidates: string[] = [];
    for (const tag of [BASE_OS_TAG, MACHINE_OS_CONTENT_TAG]) {
      // a release without machine-os-content (4.13 and later) simply does not offer it; any other failure to read the
      // payload is the run's failure
      const found = await releaseImageTaggedOf(session.access, releaseImage, session.cluster, tag).catch((error: unknown) => {
        if (error instanceof ReleaseImageTagNotFoundError && tag === MACHINE_OS_CONTENT_TAG) return undefined;
        throw error;
      });
      if (found?.pullspec === image) {
        await attachText(`default OS image (${found.tag})`, image);
        return { image, tag: found.tag };
      }
      if (found) candidates.push(`${found.tag} ${found.pullspec}`);
    }
    const earlier = await earlierReleaseWith(session, releaseImage, image);
    throw new Error(
      `${source} gives ${role} pools ${image}, which is none of the OS images of release ${releaseImage} (${candidates.join(', ') || 'it names none'})` +
        (earlier ? `; it is ${earlier.tag} of ${earlier.version}, a release this cluster ran before: the templates kept the old release's OS image` : ': the MCO has not rendered its templates for this release yet, or the release is not the one the cluster runs'),
    );
  });
}

/** The release of the cluster's history (other than `current`) that lists `image` as one of its OS images, if any. */
async function earlierReleaseWith(session: FlowSession, current: string, image: string): Promise<{ version: string; tag: string } | undefined> {
  const history = (await session.cluster.getClusterVersion()).status?.history ?? [];
  for (const entry of history) {
    if (!entry.image || entry.image === current) continue;
    for (const tag of [BASE_OS_TAG, MACHINE_OS_CONTENT_TAG]) {
      const found = await releaseImageTaggedOf(session.access, entry.image, session.cluster, tag).catch(() => undefined);
      if (found?.pullspec === image) return { version: entry.version || entry.image, tag: found.tag };
    }
  }
  return undefined;
}
