/** Which events count as a component restart on the upgrade's timeline, and that each is reported once. */
import type { CoreV1Event } from '@kubernetes/client-node';
import { expect } from 'chai';
import { RestartRecorder, restartOf } from '../../helpers/restart-events.js';

const event = (uid: string, reason: string, namespace: string, pod: string, message: string, kind = 'Pod'): CoreV1Event =>
  ({ metadata: { uid, namespace, name: `${pod}.${uid}` }, involvedObject: { kind, name: pod, namespace }, reason, message, count: 1 }) as CoreV1Event;

describe('restart events on the upgrade timeline', () => {
  it('counts Killing and Started of the components\' pods only', () => {
    expect(restartOf(event('1', 'Killing', 'openshift-machine-config-operator', 'machine-config-operator-abc', 'Stopping container machine-config-operator'))).to.deep.equal({
      namespace: 'openshift-machine-config-operator',
      pod: 'machine-config-operator-abc',
      reason: 'Killing',
      message: 'Stopping container machine-config-operator',
    });
    expect(restartOf(event('2', 'Started', 'openshift-kube-apiserver', 'kube-apiserver-m0', 'Started container kube-apiserver'))).to.include({ namespace: 'openshift-kube-apiserver', pod: 'kube-apiserver-m0', reason: 'Started' });
    expect(restartOf(event('3', 'Pulled', 'openshift-machine-config-operator', 'machine-config-daemon-x', 'pulled'))).to.equal(undefined);
    expect(restartOf(event('4', 'Killing', 'my-app', 'web-1', 'Stopping container web'))).to.equal(undefined);
    expect(restartOf(event('5', 'Killing', 'openshift-machine-config-operator', 'worker', 'x', 'MachineConfigPool'))).to.equal(undefined);
  });

  it('reports each new restart once, none from before it started, and rides out a failing list', async () => {
    const events: CoreV1Event[] = [event('old', 'Killing', 'openshift-cluster-version', 'cvo-1', 'Stopping container cluster-version-operator')];
    let failing = false;
    const seen: string[] = [];
    const recorder = new RestartRecorder(async () => {
      if (failing) throw new Error('connect ECONNREFUSED');
      return [...events];
    }, (r) => seen.push(`${r.namespace}/${r.pod} ${r.reason}: ${r.message}`), 5);
    recorder.start();
    await new Promise((r) => setTimeout(r, 20));
    events.push(event('new', 'Killing', 'openshift-machine-config-operator', 'mco-1', 'Stopping container machine-config-operator'));
    failing = true;
    await new Promise((r) => setTimeout(r, 20));
    failing = false;
    events.push(event('new2', 'Started', 'openshift-machine-config-operator', 'mco-2', 'Started container machine-config-operator'));
    await new Promise((r) => setTimeout(r, 30));
    recorder.stop();
    expect(seen).to.deep.equal([
      'openshift-machine-config-operator/mco-1 Killing: Stopping container machine-config-operator',
      'openshift-machine-config-operator/mco-2 Started: Started container machine-config-operator',
    ]);
  });
});
