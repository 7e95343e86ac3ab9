/**
 * A release as the cluster learns it from its payload image: version, payload pullspec and the OS images by tag name.
 * Which tag is the base OS image is OpenShift's naming, not the reader's choice: the accessors below know both the 4.12
 * and the 4.13+ names, so code that asks them works for a release of either.
 */
export interface ReleaseInfo {
  version: string;
  /** Payload pullspec, `<registry>/ocp/release:<version>` (or whatever reference it was read from). */
  image: string;
  /** The payload's OS images by image-references tag name (e.g. `rhel-coreos-8`, `machine-os-content`), by digest. */
  osImages: Record<string, string>;
  /** Versions this release says it can be updated from (release-metadata `previous`). */
  previous?: string[];
}

const MACHINE_OS_CONTENT = 'machine-os-content';
/** `rhel-coreos-8` (4.12) or `rhel-coreos` (4.13 and later); not 4.21's second stream `rhel-coreos-10`. */
const BASE_OS = /^rhel-coreos(-8)?$/;
const EXTENSIONS = /^rhel-coreos(-8)?-extensions$/;
/** Any OS stream's images: 4.21's `rhel-coreos-10` and `rhel-coreos-10-extensions` too. */
const ANY_STREAM = /^rhel-coreos(-\d+)?(-extensions)?$/;

/** Tag names of OS images: every stream's base OS and extensions under their 4.12 and 4.13+ names, and machine-os-content. */
export function isOsImageTag(tag: string): boolean {
  return tag === MACHINE_OS_CONTENT || ANY_STREAM.test(tag);
}

/** machine-os-content where the payload still carries it (to 4.14), else nothing: the osimageurl manifest's `osImageURL`. */
export function legacyOsImageUrl(release: Pick<ReleaseInfo, 'osImages'>): string {
  return release.osImages[MACHINE_OS_CONTENT] ?? '';
}

/** The tag name of the base OS image (`rhel-coreos-8` or `rhel-coreos`), undefined when the release has none. */
export function baseOsTag(release: Pick<ReleaseInfo, 'osImages'>): string | undefined {
  return Object.keys(release.osImages).find((tag) => BASE_OS.test(tag));
}

/**
 * The base OS image (`baseOSContainerImage`, what FIX boots by default); a release without one (before 4.12) falls back
 * to machine-os-content, so each ConfigMap key the CVO writes names an image of the release.
 */
export function baseOsImage(release: Pick<ReleaseInfo, 'osImages'>): string {
  return baseOs(release) ?? release.osImages[MACHINE_OS_CONTENT] ?? missing(release);
}

/** The old-format OS image (`osImageURL`, what BUG boots by default); a release without one falls back to the base OS image. */
export function machineOsContent(release: Pick<ReleaseInfo, 'osImages'>): string {
  return release.osImages[MACHINE_OS_CONTENT] ?? baseOs(release) ?? missing(release);
}

/** The extensions image (`baseOSExtensionsContainerImage`), undefined when the release has none. */
export function extensionsImage(release: Pick<ReleaseInfo, 'osImages'>): string | undefined {
  const tag = Object.keys(release.osImages).find((t) => EXTENSIONS.test(t));
  return tag ? release.osImages[tag] : undefined;
}

function baseOs(release: Pick<ReleaseInfo, 'osImages'>): string | undefined {
  const tag = baseOsTag(release);
  return tag ? release.osImages[tag] : undefined;
}

function missing(release: Pick<ReleaseInfo, 'osImages'>): never {
  throw new Error(`the release names no OS image (it has: ${Object.keys(release.osImages).join(', ') || 'nothing'})`);
}
