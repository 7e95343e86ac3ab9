/**
 * The API debug pod (helpers/debug-pod.ts, the node read without `oc`) under the mock's injected faults: its calls,
 * the read of the pod's log included, go through the one retry policy, so a passing 500 costs a retry, not the read
 * of a healthy node. A tiny HTTP server plays the node's kubelet (pods/log is proxied to it) and a loop plays its
 * pod status updates.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runOnNode } from '../../helpers/debug-pod.js';
import { KubeClient, type KubeObject } from '../../lib/kube/client.js';
import { startApiServer, type RunningApiServer } from '../../mock/index.js';

describe('node probes: the API debug pod rides out injected API errors', function () {
  this.timeout(30_000);
  let api: RunningApiServer;
  let kubelet: Server;
  let kc: KubeConfig;
  let playing = true;
  let loop: Promise<void>;

  before(async () => {
    kubelet = createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(`answer of ${req.url}\n`);
    });
    await new Promise<void>((r) => kubelet.listen(0, '127.0.0.1', () => r()));
    api = await startApiServer({ kubeletHost: '127.0.0.1' });
    kc = new KubeConfig();
    kc.loadFromString(api.kubeconfigYaml());
    const k = new KubeClient(kc);
    await k.create('Node', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'w1' } });
    await k.patchStatus('Node', 'w1', { daemonEndpoints: { kubeletEndpoint: { Port: (kubelet.address() as AddressInfo).port } }, conditions: [{ type: 'Ready', status: 'True' }] });
    // the kubelet's status updates: every debug pod's container ends at once with exit code 0
    loop = (async () => {
      while (playing) {
        const pods = await k.list<KubeObject & { status?: { phase?: string } }>('Pod').catch(() => ({ items: [] }));
        for (const pod of pods.items) {
          if (pod.status?.phase === 'Succeeded') continue;
          const terminated = { exitCode: 0, reason: 'Completed', startedAt: new Date().toISOString(), finishedAt: new Date().toISOString() };
          await k.patchStatus('Pod', pod.metadata.name!, { phase: 'Succeeded', containerStatuses: [{ name: 'container-00', image: 'x', imageID: '', ready: false, restartCount: 0, state: { terminated } }] }, pod.metadata.namespace).catch(() => undefined);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
  });

  after(async () => {
    playing = false;
    await loop;
    await api?.close();
    kubelet?.close();
  });

  it('a log read answered 500 is retried under the policy and the node\'s answer comes back', async () => {
    api.setFaults({ rate500: 1, pathPattern: '/log$' });
    const retries: Array<{ what: string; code?: number }> = [];
    const r = await runOnNode(kc, 'w1', ['chroot', '/host', 'true'], {
      retry: {
        onRetry: (what, failure) => {
          retries.push({ what, code: failure.code });
          api.setFaults({}); // the API server is back after its first 500
        },
      },
    });
    expect(r.output).to.equal(`answer of /containerLogs/${r.pod}/container-00\n`);
    expect(retries).to.deep.equal([{ what: `read the log of Pod ${r.pod}`, code: 500 }]);
  });

  it('an API server that keeps failing fails the read, naming the step and the API\'s message', async () => {
    api.setFaults({ rate500: 1, pathPattern: '/log$' });
    try {
      const message = await runOnNode(kc, 'w1', ['chroot', '/host', 'true'], { retry: { attempts: 2, baseDelayMs: 1 } }).then(() => 'succeeded', (e: Error) => e.message);
      expect(message).to.match(/^cannot read the log of debug pod openshift-debug-[a-z0-9]+\/w1-debug: .*injected/);
    } finally {
      api.setFaults({});
    }
  });

  it('with 30% of all requests failing, every node read still succeeds', async () => {
    api.setFaults({ rate500: 0.3, pathPattern: '^/api/v1/(namespaces|nodes)' });
    try {
      for (let i = 0; i < 3; i++) {
        const r = await runOnNode(kc, 'w1', ['chroot', '/host', 'true'], { retry: { attempts: 10, baseDelayMs: 5 } });
        expect(r.exitCode).to.equal(0);
      }
    } finally {
      api.setFaults({});
    }
  });
});
