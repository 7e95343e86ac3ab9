/**
 * A throw-away certificate authority and serving certificate, made at start so HTTPS works without set-up.
 * Keys are ECDSA P-256 from Node's crypto (about a millisecond, where RSA-2048 takes hundreds); node-forge's ASN.1
 * encoder assembles the X.509 structures, and Node's crypto signs them. Go clients (kubectl, oc) and Node accept
 * these certificates.
 */
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';

const { asn1 } = forge;
type Asn1 = forge.asn1.Asn1;

export interface ServingCertificates { caPem: string; certPem: string; keyPem: string }

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  serverAuth: '1.3.6.1.5.5.7.3.1',
};

const U = asn1.Class.UNIVERSAL;
const seq = (items: Asn1[]) => asn1.create(U, asn1.Type.SEQUENCE, true, items);
const oid = (id: string) => asn1.create(U, asn1.Type.OID, false, asn1.oidToDer(id).getBytes());
const der = (a: Asn1) => asn1.toDer(a).getBytes();

function name(commonName: string): Asn1 {
  return seq([asn1.create(U, asn1.Type.SET, true, [seq([oid(OID.commonName), asn1.create(U, asn1.Type.UTF8, false, forge.util.encodeUtf8(commonName))])])]);
}

function extension(id: string, critical: boolean, value: Asn1): Asn1 {
  const parts = [oid(id)];
  if (critical) parts.push(asn1.create(U, asn1.Type.BOOLEAN, false, '\xff'));
  parts.push(asn1.create(U, asn1.Type.OCTETSTRING, false, der(value)));
  return seq(parts);
}

function ipBytes(ip: string): string {
  if (isIP(ip) === 4) return String.fromCharCode(...ip.split('.').map(Number));
  // IPv6: expand "::" and pack eight 16-bit groups.
  const [head, tail] = ip.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t].map((g) => parseInt(g || '0', 16));
  return groups.map((g) => String.fromCharCode(g >> 8, g & 0xff)).join('');
}

interface CertSpec {
  subject: string;
  issuer: string;
  publicKey: KeyObject;
  signer: KeyObject;
  ca: boolean;
  hosts?: string[];
  notBefore: Date;
  notAfter: Date;
}

function certificatePem(spec: CertSpec): string {
  const sigAlg = seq([oid(OID.ecdsaWithSha256)]);
  // Positive 16-byte serial, as RFC 5280 asks.
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f | 0x01;
  const extensions: Asn1[] = [
    extension(OID.basicConstraints, true, seq(spec.ca ? [asn1.create(U, asn1.Type.BOOLEAN, false, '\xff')] : [])),
    // keyUsage bits: digitalSignature (0x80), plus keyCertSign and cRLSign (0x06) for the CA.
    extension(OID.keyUsage, true, asn1.create(U, asn1.Type.BITSTRING, false, spec.ca ? '\x01\x86' : '\x07\x80')),
  ];
  if (!spec.ca) {
    extensions.push(extension(OID.extKeyUsage, false, seq([oid(OID.serverAuth)])));
    extensions.push(extension(OID.subjectAltName, false, seq((spec.hosts ?? []).map((h) => (isIP(h)
      ? asn1.create(asn1.Class.CONTEXT_SPECIFIC, 7, false, ipBytes(h))
      : asn1.create(asn1.Class.CONTEXT_SPECIFIC, 2, false, h))))));
  }
  const tbs = seq([
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [asn1.create(U, asn1.Type.INTEGER, false, '\x02')]),
    asn1.create(U, asn1.Type.INTEGER, false, serial.toString('binary')),
    sigAlg,
    name(spec.issuer),
    seq([asn1.create(U, asn1.Type.UTCTIME, false, asn1.dateToUtcTime(spec.notBefore)), asn1.create(U, asn1.Type.UTCTIME, false, asn1.dateToUtcTime(spec.notAfter))]),
    name(spec.subject),
    asn1.fromDer(spec.publicKey.export({ type: 'spki', format: 'der' }).toString('binary')),
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 3, true, [seq(extensions)]),
  ]);
  const tbsDer = der(tbs);
  const signature = sign('sha256', Buffer.from(tbsDer, 'binary') as unknown as Uint8Array, spec.signer);
  const cert = seq([tbs, seq([oid(OID.ecdsaWithSha256)]), asn1.create(U, asn1.Type.BITSTRING, false, '\x00' + signature.toString('binary'))]);
  const body = Buffer.from(der(cert), 'binary').toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;
}

/** A certificate authority: its certificate (the trust anchor clients are given) and the key that signs with it. */
export interface CertificateAuthority {
  caPem: string;
  /** Never written anywhere but a 0600 file of its owner; only used to issue serving certificates. */
  key: KeyObject;
  name: string;
}

const YEAR_MS = 365 * 24 * 3600_000;

/**
 * A new CA valid for a year (one minute back-dated, so clocks a little behind still accept it). Its subject ends in
 * a unique id: TLS clients find an issuer by its subject name, so two clusters' CAs of one name in one bundle (the
 * SSL_CERT_FILE of a sourced `cluster up --env-out` file, while a second cluster starts) make the client check a
 * certificate against the wrong key (CERT_SIGNATURE_FAILURE).
 */
export function makeCertificateAuthority(baseName = 'ocp-e2e mock API server CA'): CertificateAuthority {
  const name = `${baseName} ${randomBytes(6).toString('hex')}`;
  const ca = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const notBefore = new Date(Date.now() - 60_000);
  const caPem = certificatePem({ subject: name, issuer: name, publicKey: ca.publicKey, signer: ca.privateKey, ca: true, notBefore, notAfter: new Date(notBefore.getTime() + YEAR_MS) });
  return { caPem, key: ca.privateKey, name };
}

/** A serving certificate for the given host names / IP addresses, signed by `ca`, valid for a year. */
export function issueServingCertificate(ca: CertificateAuthority, hosts: string[], subject = 'ocp-e2e-mock-apiserver'): ServingCertificates {
  const server = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const notBefore = new Date(Date.now() - 60_000);
  const certPem = certificatePem({ subject, issuer: ca.name, publicKey: server.publicKey, signer: ca.key, ca: false, hosts, notBefore, notAfter: new Date(notBefore.getTime() + YEAR_MS) });
  const keyPem = server.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  return { caPem: ca.caPem, certPem, keyPem };
}

/** Makes a CA and a serving certificate for the given host names / IP addresses, valid for a year. */
export async function makeServingCertificates(hosts: string[]): Promise<ServingCertificates> {
  return issueServingCertificate(makeCertificateAuthority(), hosts);
}
