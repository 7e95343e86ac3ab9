/**
 * A 4.12 cluster upgraded to 4.13: 4.12 GA's machine-config-operator on the installed release, release-4.13's on the
 * one it upgrades to. 4.13's payload names its OS image `rhel-coreos` (RHEL 9.2 based) and its extensions
 * `rhel-coreos-extensions`; it still carries machine-os-content, as release-4.13's install/image-references does
 * (the image left the payload with PR #3364, merged 2023-10-02 for 4.15). The MCO's docs (docs/UsingLayering.md) say an
 * overridden pool's OS is not upgraded with the cluster: its image stays until the user rebuilds it on the new base.
 */
import { MCO_4_13, MCO_FIX } from './mco-code.js';
import { defineProfile } from './profile.js';
import { RHEL_COREOS_8_IMAGES } from './report-releases.js';

export default defineProfile({
  ...MCO_FIX,
  name: '4.12-to-4.13',
  summary: '4.12 GA upgraded to 4.13',
  description: 'OpenShift 4.12 GA upgraded to 4.13: release-4.13 machine-config-operator (a57ca2912) on the new release, rhel-coreos (RHEL 9.2) as its OS',
  releases: {
    channel: 'stable-4.13',
    current: { version: '4.12.0', osImageTags: RHEL_COREOS_8_IMAGES, rhel: '8.6' },
    next: {
      version: '4.13.0',
      osImageTags: { base: 'rhel-coreos', machineOsContent: 'machine-os-content', extensions: 'rhel-coreos-extensions' },
      rhel: '9.2',
    },
  },
  nextMco: MCO_4_13,
  deviates: [],
});
