/**
 * A 4.20 cluster taken to 4.22 over 4.21, the EUS-to-EUS path: two minor upgrades, one hop at a time, each release
 * running its own branch's machine-config operator (heads of August 2026). The update graph offers 4.21 from 4.20 and
 * 4.22 only from 4.21, as the update service does; a run's upgrade specs upgrade hop by hop. Between the hops the
 * cluster is a 4.21 one: templates without osImageURL, the RHEL 10 images beside RHEL 9; after the second, 4.22's
 * daemon words a failed rebase with its last error, and a pool kept on a 4.20 image is two kubelet minors behind.
 */
import { MCO_4_20, MCO_4_21, MCO_4_22 } from './mco-code.js';
import { RELEASE_4_20, RELEASE_4_21, RELEASE_4_22 } from './modern-releases.js';
import { defineProfile } from './profile.js';

export default defineProfile({
  ...MCO_4_20,
  name: '4.20-to-4.22',
  summary: '4.20 upgraded to 4.22 over 4.21 (EUS)',
  description:
    'OpenShift 4.20 upgraded to 4.21 and then to 4.22, the EUS path: release-4.20 machine-config-operator (afed09939) installed, release-4.21 (db84d8368) after the first hop, release-4.22 (9027c94cd) after the second',
  releases: { channel: 'eus-4.22', current: RELEASE_4_20, next: RELEASE_4_21, further: [RELEASE_4_22] },
  nextMco: MCO_4_21,
  furtherMco: [MCO_4_22],
  deviates: [],
});
