/**
 * lib/oci/tls.ts: fetchTrusting trusts what a Go client would (Node's roots, or SSL_CERT_FILE instead of them) plus
 * the CAs it is given, and nothing else: a server whose CA is given answers, one whose CA is not is refused for its
 * certificate, and SSL_CERT_FILE replaces the roots rather than adding to them.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fetchFailureCode, fetchTrusting, isCertificateProblem } from '../../../lib/oci/tls.js';
import { issueServingCertificate, makeCertificateAuthority } from '../../../mock/tls.js';

describe('lib/oci/tls: fetchTrusting trusts the roots and the CAs given, nothing more', () => {
  const caA = makeCertificateAuthority('ocp-e2e tls test CA a');
  const caB = makeCertificateAuthority('ocp-e2e tls test CA b');
  let server: Server;
  let url: string;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ocp-e2e-tls-'));
    const cert = issueServingCertificate(caA, ['127.0.0.1'], 'ocp-e2e-tls-test');
    server = createServer({ cert: cert.certPem, key: cert.keyPem }, (_req, res) => res.end('trusted'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => {
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const refusal = async (fetch: typeof globalThis.fetch): Promise<unknown> => {
    try {
      await fetch(url);
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it('the server\'s CA given: it answers (alone, among others, and with an agent already made for another set)', async () => {
    const env = {};
    expect(await (await fetchTrusting([caA.caPem], env)(url)).text()).to.equal('trusted');
    expect(await (await fetchTrusting([caB.caPem, caA.caPem], env)(url)).text()).to.equal('trusted');
    expect(await (await fetchTrusting([caA.caPem], env)(url)).text()).to.equal('trusted');
  });

  it('another CA given, or none: refused for the certificate', async () => {
    const other = await refusal(fetchTrusting([caB.caPem], {}));
    expect(other, 'a CA that did not sign the server is not enough').to.not.equal(undefined);
    expect(isCertificateProblem(other), fetchFailureCode(other)).to.equal(true);
  });

  it('SSL_CERT_FILE replaces the roots: a bundle holding the server\'s CA is enough, one without it is not', async () => {
    const withA = path.join(dir, 'with-a.pem');
    const withB = path.join(dir, 'with-b.pem');
    writeFileSync(withA, caA.caPem);
    writeFileSync(withB, caB.caPem);
    expect(await (await fetchTrusting([], { SSL_CERT_FILE: withA })(url)).text()).to.equal('trusted');
    const refused = await refusal(fetchTrusting([], { SSL_CERT_FILE: withB }));
    expect(isCertificateProblem(refused), fetchFailureCode(refused)).to.equal(true);
    expect(await (await fetchTrusting([caA.caPem], { SSL_CERT_FILE: withB })(url)).text()).to.equal('trusted');
  });

  it('NODE_EXTRA_CA_CERTS of the environment given is trusted besides the roots', async () => {
    const extra = path.join(dir, 'extra.pem');
    writeFileSync(extra, caA.caPem);
    expect(await (await fetchTrusting([caB.caPem], { NODE_EXTRA_CA_CERTS: extra })(url)).text()).to.equal('trusted');
  });
});
