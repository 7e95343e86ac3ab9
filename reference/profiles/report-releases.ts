/**
 * The two releases of the bug report, the 4.12 nightlies of 2022-09-08 (installed) and 2022-09-12 (upgraded to), as
 * 4.12 payloads name their OS images. Both 4.12 profiles run on them: the profiles differ in their MCO code only.
 */
import type { OsImageTags, ReleaseSet } from '../releases/release-set.js';

/** 4.12's image-references: the base OS `rhel-coreos-8`, its extensions, and the old-format machine-os-content. */
export const RHEL_COREOS_8_IMAGES: OsImageTags = {
  base: 'rhel-coreos-8',
  machineOsContent: 'machine-os-content',
  extensions: 'rhel-coreos-8-extensions',
};

export const REPORT_RELEASES: ReleaseSet = {
  channel: 'stable-4.12',
  current: { version: '4.12.0-0.nightly-2022-09-08-002336', osImageTags: RHEL_COREOS_8_IMAGES },
  next: { version: '4.12.0-0.nightly-2022-09-12-152748', osImageTags: RHEL_COREOS_8_IMAGES },
};
