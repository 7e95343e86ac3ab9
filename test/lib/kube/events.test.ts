/**
 * KubeClient.event as client-go's recorder sends events (tools/record/events_cache.go): a repeat raises the count of
 * one Event object, and the spam filter per source and object lets 25 through, then one per 5 minutes of the clock
 * the events are stamped with, the dropped repeats still counted by the next one sent. The events are asked of a real
 * API server (the mock) by the same field selector the suite uses.
 */
import { expect } from 'chai';
import { Cluster } from '../../../helpers/cluster.js';
import { KubeClient } from '../../../lib/kube/client.js';
import { MockCluster } from '../../helpers/fixture.js';

describe('lib/kube: events as client-go records them', function () {
  this.timeout(30_000);
  let mock: MockCluster;
  before(async () => {
    mock = await MockCluster.start();
  });
  after(async () => {
    await mock?.stop();
  });

  it('one Event per distinct event; 25 sends at once, then one per 5 minutes carrying every repeat in its count', async () => {
    const client = KubeClient.fromFile(mock.kubeconfigPath);
    const cluster = Cluster.fromKubeconfig(mock.kubeconfigPath);
    const about = { kind: 'MachineConfig', name: 'rendered-worker-1', apiVersion: 'machineconfiguration.openshift.io/v1' };
    const t0 = Date.parse('2026-12-07T00:00:00Z');
    const at = (ms: number) => new Date(t0 + ms).toISOString();
    const say = (ms: number, message = 'overridden') => client.event(about, 'Normal', 'OSImageURLOverridden', message, 'machineconfigcontroller-rendercontroller', at(ms));
    const seen = async () => (await cluster.eventsAbout(about, 'OSImageURLOverridden')).map((e) => [e.message, e.count]);

    for (let i = 0; i < 30; i++) await say(0);
    expect(await seen()).to.deep.equal([['overridden', 25]]);
    await say(60_000); // a minute later: the bucket has a fifth of a token
    expect(await seen()).to.deep.equal([['overridden', 25]]);
    await say(300_000); // five minutes after the burst: one token, and the count of every repeat so far
    expect(await seen()).to.deep.equal([['overridden', 32]]);
    // another message about the same object is another Event, but shares the object's bucket (empty again)
    await say(300_001, 'another');
    expect((await seen()).sort()).to.deep.equal([['overridden', 32]]);
    await say(600_001, 'another');
    expect((await seen()).sort()).to.deep.equal([['another', 2], ['overridden', 32]]);
  });
});
