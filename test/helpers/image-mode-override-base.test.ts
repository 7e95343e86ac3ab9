/**
 * Spec 19's reason to skip, from the suite's own table: the release the upgrade goes to must build FROM the rendered
 * osImageURL (4.22+) for an override on an image-mode pool to be judged as its build's base; asked of the upgrade's
 * target in the phases that prepare and of the release ClusterVersion went to in post.
 */
import { expect } from 'chai';
import { overrideNotBuildBase, overrideNotBuildBaseAfterUpgrade } from '../../helpers/image-mode/override-base.js';
import { releaseRules } from '../../helpers/releases/select.js';
import { RegistryCredentials } from '../../lib/oci/credentials.js';
import type { Cluster } from '../../helpers/cluster.js';
import type { RunPhase } from '../../helpers/target.js';
import type { ClusterVersion } from '../../helpers/types.js';

const at = (current: string, next?: string): ClusterVersion =>
  ({ status: { desired: { version: current, image: `quay.io/ocp/release:${current}` }, availableUpdates: next ? [{ version: next, image: `quay.io/ocp/release:${next}` }] : [] } }) as unknown as ClusterVersion;
const session = (cv: ClusterVersion, phase: RunPhase) => ({
  cluster: { getClusterVersion: async () => cv } as unknown as Cluster,
  access: { credentials: new RegistryCredentials() },
  target: { phase } as never,
});

describe('helpers/image-mode: where an override on an image-mode pool is its build\'s base', () => {
  it('on 4.22, by the suite\'s table; up to 4.21 the reason says why nothing can be judged', () => {
    expect(overrideNotBuildBase(releaseRules('4.22.0').rules)).to.equal(undefined);
    expect(overrideNotBuildBase(releaseRules('4.21.3').rules)).to.equal(
      "on OpenShift 4.21 an image-mode build starts FROM the release's base OS image whatever an osImageURL override on its pool says (the override is the build's base from 4.22, MCO-1972), and the suite refuses an override on a pool with a MachineOSConfig there: nothing of the override's to judge",
    );
  });

  it('asks of the release the upgrade goes to in all and pre, of the one ClusterVersion went to in post, of none in upgrade', async () => {
    expect(await overrideNotBuildBaseAfterUpgrade(session(at('4.21.0', '4.22.0'), 'all'))).to.equal(undefined);
    expect(await overrideNotBuildBaseAfterUpgrade(session(at('4.20.0', '4.21.0'), 'pre'))).to.match(/^the upgrade goes to 4\.21\.0: on OpenShift 4\.21 an image-mode build starts FROM the release's base OS image/);
    expect(await overrideNotBuildBaseAfterUpgrade(session(at('4.21.0'), 'post'))).to.match(/^the upgrade goes to 4\.21\.0: on OpenShift 4\.21/);
    expect(await overrideNotBuildBaseAfterUpgrade(session(at('4.22.0'), 'post'))).to.equal(undefined);
    expect(await overrideNotBuildBaseAfterUpgrade(session(at('4.20.0', '4.21.0'), 'upgrade'))).to.equal(undefined);
    // no release offered: the preflight's "needs a release to upgrade to" says it
    expect(await overrideNotBuildBaseAfterUpgrade(session(at('4.21.0'), 'all'))).to.equal(undefined);
  });
});
