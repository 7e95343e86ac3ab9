/** The machine-config-operator of the report's nightly: the osImageURL check fails on an override. */
import { defineProfile } from './profile.js';
import { REPORT_RELEASES } from './report-releases.js';

export default defineProfile({
  name: '4.12-nightly-2022-09-08',
  summary: "the bug report's buggy MCO",
  description: 'machine-config-operator of the 2022-09-08 nightly (BUG-A): osImageURL check fails on an override',
  // BUG-B: the last main commit before the fix; its required-pools logic is BUG-A's, the nightly's own code
  upstream: { label: 'BUG-B', commit: 'cad20f7101719838aaa87c066430987303500fa6' },
  releases: REPORT_RELEASES,
  annotateOverriddenOsImage: false,
  newFormatImageByDefault: false,
  layeredImageRefusesLayering: true,
  specHasExtensionsImage: false,
  configMapKeys: {
    releaseVersion: 'releaseVersion',
    osImageURL: 'osImageURL',
    baseOSContainerImage: 'baseOperatingSystemContainer',
  },
  missingUrlsMessage: 'Missing baseOperatingSystemContainer and osImageURL from configmap',
  availableFalseHasReason: false,
  deviates: [],
});
