/**
 * The releases of today's profiles as their payloads name their OS images (MCO `<branch>:install/image-references`):
 * `rhel-coreos` and `rhel-coreos-extensions` since machine-os-content left (a82a03408, 4.15), on RHEL 9.4 in 4.18 and
 * RHEL 9.6 from 4.19; 4.21 and
 * later add `rhel-coreos-10` and `rhel-coreos-10-extensions` on RHEL 10.1 (0e931a686). The versions stand for the
 * release branches' heads of August 2026 that the profiles' code is read from.
 */
import type { OsImageTags, ReleaseDefinition } from '../releases/release-set.js';

const RHEL_COREOS_9: OsImageTags = { base: 'rhel-coreos', extensions: 'rhel-coreos-extensions' };
const WITH_RHEL_COREOS_10: OsImageTags = { ...RHEL_COREOS_9, secondStream: { base: 'rhel-coreos-10', extensions: 'rhel-coreos-10-extensions', rhel: '10.1' } };

export const RELEASE_4_18: ReleaseDefinition = { version: '4.18.0', osImageTags: RHEL_COREOS_9, rhel: '9.4' };
export const RELEASE_4_19: ReleaseDefinition = { version: '4.19.0', osImageTags: RHEL_COREOS_9, rhel: '9.6' };
export const RELEASE_4_20: ReleaseDefinition = { version: '4.20.0', osImageTags: RHEL_COREOS_9, rhel: '9.6' };
export const RELEASE_4_21: ReleaseDefinition = { version: '4.21.0', osImageTags: WITH_RHEL_COREOS_10, rhel: '9.6' };
export const RELEASE_4_22: ReleaseDefinition = { version: '4.22.0', osImageTags: WITH_RHEL_COREOS_10, rhel: '9.6' };
