/**
 * A 4.20 cluster upgraded to 4.21: release-4.20's machine-config-operator on the installed release, release-4.21's on
 * the one it upgrades to (branch heads of August 2026). What a layered pool meets there: every OS update an
 * `rpm-ostree rebase` retried with backoff, whose failure the node's reason words only as a timeout; and after the
 * upgrade, templates without an osImageURL and a merge that ignores generated configs, so an early-named override
 * wins. 4.21's payload adds the RHEL 10 OS images beside the RHEL 9 ones.
 */
import { MCO_4_20, MCO_4_21 } from './mco-code.js';
import { RELEASE_4_20, RELEASE_4_21 } from './modern-releases.js';
import { defineProfile } from './profile.js';

export default defineProfile({
  ...MCO_4_20,
  name: '4.20-to-4.21',
  summary: '4.20 upgraded to 4.21',
  description: 'OpenShift 4.20 upgraded to 4.21: release-4.20 machine-config-operator (afed09939) installed, release-4.21 (db84d8368) on the new release; rhel-coreos on RHEL 9.6, and rhel-coreos-10 from 4.21',
  releases: { channel: 'stable-4.21', current: RELEASE_4_20, next: RELEASE_4_21 },
  nextMco: MCO_4_21,
  deviates: [],
});
