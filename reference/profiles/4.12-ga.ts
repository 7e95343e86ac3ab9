/** OpenShift 4.12 GA's machine-config-operator: the fixed code, on the report's releases. */
import { defineProfile } from './profile.js';
import { REPORT_RELEASES } from './report-releases.js';

export default defineProfile({
  name: '4.12-ga',
  summary: 'fixed MCO',
  description: 'OpenShift 4.12 GA machine-config-operator (contains the fix of PR #3317, MCO-289)',
  // release-4.12 branched at 186d096e5, which contains FIX; the oracles are built at FIX itself
  upstream: { label: 'FIX', commit: '3943ef1d03c1aaf3a02bfdf45d16902ff44449a3' },
  releases: REPORT_RELEASES,
  annotateOverriddenOsImage: true,
  newFormatImageByDefault: true,
  layeredImageRefusesLayering: false,
  specHasExtensionsImage: true,
  configMapKeys: {
    releaseVersion: 'releaseVersion',
    osImageURL: 'osImageURL',
    baseOSContainerImage: 'baseOSContainerImage',
    baseOSExtensionsContainerImage: 'baseOSExtensionsContainerImage',
  },
  missingUrlsMessage: 'Missing baseOSContainerImage and osImageURL from configmap',
  availableFalseHasReason: true,
  deviates: [],
});
