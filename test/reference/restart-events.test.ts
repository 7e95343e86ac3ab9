/**
 * A restart on the timeline names a pod a person can look at: the kubelet events of the reference's component
 * restarts (a killed container, a node's daemon, the operator replaced by the new release's at the upgrade) are on
 * the Pod objects the workload controller made, the ones `oc get pods` lists and `oc logs` reads.
 */
import { expect } from 'chai';
import type { CoreV1Event } from '@kubernetes/client-node';
import type { KubeObject } from '../../lib/kube/client.js';
import { type Harness, requestUpgrade, startHarness, waitFor } from './support/cluster.js';

const MCO = 'openshift-machine-config-operator';
const WAIT_MS = 60_000;

describe('reference: restart events name the Pod objects of the components', function () {
  this.timeout(180_000);
  let h: Harness;

  const pods = async (app: string): Promise<(KubeObject & { spec?: { nodeName?: string } })[]> =>
    (await h.k.list<KubeObject & { spec?: { nodeName?: string } }>('Pod', { namespace: MCO, labelSelector: `k8s-app=${app}` })).items;
  const restartEvents = async (reason: string, message: RegExp): Promise<CoreV1Event[]> =>
    (await h.k.list<CoreV1Event & KubeObject>('Event', { namespace: MCO })).items.filter((e) => e.reason === reason && message.test(e.message ?? ''));

  before(async () => {
    h = await startHarness({ profile: '4.12-ga' });
    await waitFor('the operator, controller and daemon pods', async () => (await pods('machine-config-operator')).length === 1 && (await pods('machine-config-controller')).length === 1 && (await pods('machine-config-daemon')).length === 5, WAIT_MS);
  });
  after(async () => h?.cluster.stop());

  it('a killed controller: Killing and Started on its one Pod', async () => {
    const [pod] = await pods('machine-config-controller');
    await h.cluster.restartComponent('machine-config-controller', 'killed by the test');
    const killing = await restartEvents('Killing', /Stopping container machine-config-controller: killed by the test/);
    const started = await restartEvents('Started', /Started container machine-config-controller/);
    expect(killing.map((e) => e.involvedObject.name)).to.deep.equal([pod!.metadata.name]);
    expect(started.map((e) => e.involvedObject.name)).to.include(pod!.metadata.name);
  });

  it("a node's daemon: the events are on that node's daemon Pod", async () => {
    const daemon = (await pods('machine-config-daemon'))[0]!;
    await h.cluster.restartDaemon(daemon.spec!.nodeName!, 'killed by the test');
    const killing = await restartEvents('Killing', /Stopping container machine-config-daemon: killed by the test/);
    expect(killing.map((e) => e.involvedObject.name)).to.deep.equal([daemon.metadata.name]);
  });

  it("at the upgrade the operator's old Pod gets Killing and the new release's Pod gets Started, and that Pod exists", async () => {
    const [old] = await pods('machine-config-operator');
    await requestUpgrade(h.k, h.cluster.releases.next.image);
    const killed = await waitFor('Killing on the old operator pod', async () => (await restartEvents('Killing', /Stopping container machine-config-operator: new release/))[0], WAIT_MS);
    expect(killed.involvedObject.name).to.equal(old!.metadata.name);
    const started = await waitFor('Started on the new operator pod', async () => (await restartEvents('Started', /Started container machine-config-operator/)).find((e) => e.involvedObject.name !== old!.metadata.name), WAIT_MS);
    const now = (await pods('machine-config-operator')).map((p) => p.metadata.name);
    expect(now, 'the pod the Started event names is the running operator').to.include(started.involvedObject.name);
  });
});
