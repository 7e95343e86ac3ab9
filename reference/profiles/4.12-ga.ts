/** OpenShift 4.12 GA's machine-config-operator: the fixed code, on the report's releases. */
import { MCO_FIX } from './mco-code.js';
import { defineProfile } from './profile.js';
import { REPORT_RELEASES } from './report-releases.js';

export default defineProfile({
  ...MCO_FIX,
  name: '4.12-ga',
  summary: 'fixed MCO',
  description: 'OpenShift 4.12 GA machine-config-operator (contains the fix of PR #3317, MCO-289)',
  // release-4.12 branched at 186d096e5, which contains FIX; the oracles are built at FIX itself
  releases: REPORT_RELEASES,
  deviates: [],
});
