/**
 * A 4.21 cluster upgraded to 4.22: release-4.21's machine-config-operator on the installed release, release-4.22's on
 * the one it upgrades to (branch heads of August 2026). Once 4.22's daemons have rolled out, a failed OS update is
 * retried longer and the node's reason carries the last rpm-ostree error again (OCPBUGS-112614).
 */
import { MCO_4_21, MCO_4_22 } from './mco-code.js';
import { RELEASE_4_21, RELEASE_4_22 } from './modern-releases.js';
import { defineProfile } from './profile.js';

export default defineProfile({
  ...MCO_4_21,
  name: '4.21-to-4.22',
  summary: '4.21 upgraded to 4.22',
  description: 'OpenShift 4.21 upgraded to 4.22: release-4.21 machine-config-operator (db84d8368) installed, release-4.22 (9027c94cd) on the new release',
  releases: { channel: 'stable-4.22', current: RELEASE_4_21, next: RELEASE_4_22 },
  nextMco: MCO_4_22,
  deviates: [],
});
