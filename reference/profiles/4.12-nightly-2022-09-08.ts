/** The machine-config-operator of the report's nightly: the osImageURL check fails on an override. */
import { MCO_BUG_B } from './mco-code.js';
import { defineProfile } from './profile.js';
import { REPORT_RELEASES } from './report-releases.js';

export default defineProfile({
  ...MCO_BUG_B,
  name: '4.12-nightly-2022-09-08',
  summary: "the bug report's buggy MCO",
  description: 'machine-config-operator of the 2022-09-08 nightly (BUG-A): osImageURL check fails on an override',
  releases: REPORT_RELEASES,
  deviates: [],
});
