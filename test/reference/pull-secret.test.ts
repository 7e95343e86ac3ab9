/**
 * The reference's nodes pull as a real node does: with the cluster's pull secret as it is at the time of the pull,
 * its entries matched to the repository (host, or a host/path prefix), and without an entry a registry that wants
 * credentials refuses the pull with the daemon's words (`unauthorized: authentication required`).
 */
import { expect } from 'chai';
import type { KubeClient } from '../../lib/kube/client.js';
import { registryImageReader } from '../../reference/images.js';
import { PullSecretRegistryClients } from '../../reference/pull-secret.js';
import { markerPullSecret, startTestRegistry, type TestRegistry } from '../lib/oci/support/fixtures.js';

/** A client whose openshift-config/pull-secret holds `text` (undefined: no such secret). */
function kubeWithPullSecret(text: string | undefined): KubeClient {
  return {
    async get(kind: string, name: string, namespace: string) {
      expect([kind, namespace, name]).to.deep.equal(['Secret', 'openshift-config', 'pull-secret']);
      return text === undefined ? undefined : { data: { '.dockerconfigjson': Buffer.from(text).toString('base64') } };
    },
  } as unknown as KubeClient;
}

async function nodePull(pullSecret: string | undefined, ref: string): Promise<string> {
  const clients = new PullSecretRegistryClients(kubeWithPullSecret(pullSecret), []);
  const reader = registryImageReader(() => clients.current());
  return reader.resolveOsImage(ref).then(() => 'pulled', (error: Error) => error.message);
}

describe('reference: the nodes pull with the cluster\'s pull secret', function () {
  this.timeout(60_000);
  let secured: TestRegistry;
  before(async () => {
    secured = await startTestRegistry({ auth: true });
  });
  after(async () => {
    await secured?.dispose();
  });

  it('without an entry for the registry the pull fails as the daemon\'s does; with one (host or path prefix) it is let in', async () => {
    const ref = `${secured.address}/e2e/layered:1`;
    const refused = `Creating importer: failed to invoke method OpenImage: reading manifest 1 in ${secured.address}/e2e/layered: unauthorized: authentication required`;
    const absent = `Creating importer: failed to invoke method OpenImage: reading manifest 1 in ${secured.address}/e2e/layered: manifest unknown: manifest unknown`;
    expect(await nodePull(undefined, ref), 'no pull secret').to.equal(refused);
    expect(await nodePull(markerPullSecret('127.0.0.1:1'), ref), 'an entry for another registry').to.equal(refused);
    expect(await nodePull(markerPullSecret(`${secured.address}/other`), ref), 'an entry for another path').to.equal(refused);
    // let in: the registry then says the image is not there (nothing was pushed), not that the node is unknown
    expect(await nodePull(markerPullSecret(secured.address), ref)).to.equal(absent);
    expect(await nodePull(markerPullSecret(`${secured.address}/e2e`), ref), 'a host/path prefix entry').to.equal(absent);
  });
});
