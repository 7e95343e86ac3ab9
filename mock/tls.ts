/**
 * A throw-away certificate authority and serving certificate, made at start so HTTPS works without any set-up.
 * Keys come from Node's native crypto (fast); node-forge only assembles and signs the X.509 certificates.
 */
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import forge from 'node-forge';

const generateKeyPairAsync = promisify(generateKeyPair);

export interface ServingCertificates { caPem: string; certPem: string; keyPem: string }

async function rsaKeyPair(): Promise<{ publicKey: forge.pki.rsa.PublicKey; privateKey: forge.pki.rsa.PrivateKey; privatePem: string }> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return {
    publicKey: forge.pki.publicKeyFromPem(publicKey) as forge.pki.rsa.PublicKey,
    privateKey: forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey,
    privatePem: privateKey,
  };
}

function serial(): string {
  // Positive, random, 16 bytes: what browsers and Go's crypto/x509 expect of a serial number.
  return '01' + forge.util.bytesToHex(forge.random.getBytesSync(15));
}

/** Makes a CA and a certificate for the given host names / IP addresses, valid for a year. */
export async function makeServingCertificates(hosts: string[]): Promise<ServingCertificates> {
  const [ca, server] = await Promise.all([rsaKeyPair(), rsaKeyPair()]);
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 365 * 24 * 3600_000);

  const caCert = forge.pki.createCertificate();
  caCert.publicKey = ca.publicKey;
  caCert.serialNumber = serial();
  caCert.validity.notBefore = notBefore;
  caCert.validity.notAfter = notAfter;
  const caSubject = [{ name: 'commonName', value: 'ocp-e2e mock API server CA' }];
  caCert.setSubject(caSubject);
  caCert.setIssuer(caSubject);
  caCert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  caCert.sign(ca.privateKey, forge.md.sha256.create());

  const cert = forge.pki.createCertificate();
  cert.publicKey = server.publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = notAfter;
  cert.setSubject([{ name: 'commonName', value: 'ocp-e2e-mock-apiserver' }]);
  cert.setIssuer(caSubject);
  const altNames = hosts.map((h) => (/^[\d.]+$/.test(h) || h.includes(':') ? { type: 7, ip: h } : { type: 2, value: h }));
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames },
  ]);
  cert.sign(ca.privateKey, forge.md.sha256.create());

  return { caPem: forge.pki.certificateToPem(caCert), certPem: forge.pki.certificateToPem(cert), keyPem: server.privatePem };
}
