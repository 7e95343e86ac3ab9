/**
 * A 4.18 cluster (EUS, RHEL 9.4) upgraded to 4.19 (RHEL 9.6): release-4.18's machine-config-operator installed,
 * release-4.19's on the new release (branch heads of August 2026). From 4.19 every node has a MachineConfigNode and the
 * operator's degraded-pool text names the pool's reason.
 */
import { MCO_4_18, MCO_4_19 } from './mco-code.js';
import { RELEASE_4_18, RELEASE_4_19 } from './modern-releases.js';
import { defineProfile } from './profile.js';

export default defineProfile({
  ...MCO_4_18,
  name: '4.18-to-4.19',
  summary: '4.18 upgraded to 4.19',
  description: 'OpenShift 4.18 upgraded to 4.19: release-4.18 machine-config-operator (f313997e0) installed, release-4.19 (1a6905d98) on the new release; rhel-coreos on RHEL 9.4, then 9.6',
  releases: { channel: 'stable-4.19', current: RELEASE_4_18, next: RELEASE_4_19 },
  nextMco: MCO_4_19,
  deviates: [],
});
