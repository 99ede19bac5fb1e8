// A certificate authority of the sandbox's own, made at start, for the AMQPS listener: clients that insist on TLS
// (Python's azure-servicebus 7.8 always dials 5671 with TLS; Proton and Java can be told to) trust its certificate,
// written to a file whose path the sandbox prints, and nothing else. Node's crypto makes the keys but cannot sign an
// X.509 certificate; node-forge (pure JavaScript, no dependencies of its own, loaded only when TLS is asked for)
// builds and signs the two certificates. The openssl binary would do it too, but is not on every developer's machine.
import { generateKeyPair, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

export interface LocalAuthority {
  /** The CA certificate (PEM) a client trusts: Python's `connection_verify`, Proton's `SSLDomain.set_trusted_ca_db`. */
  readonly caFile: string;
  /** The server's key and certificate (PEM), for 127.0.0.1 and localhost, signed by the CA. */
  readonly key: string;
  readonly cert: string;
  /** Removes the CA file (and the directory when the authority made it). */
  remove(): Promise<void>;
}

const validForMs = 30 * 24 * 3_600_000;

/** Makes the CA and the server certificate; writes the CA's certificate to `directory` (default: a new temporary one). */
export async function makeLocalAuthority(directory?: string): Promise<LocalAuthority> {
  const { default: forge } = await import("node-forge");
  const [caKeys, serverKeys] = await Promise.all([rsaKeyPair(), rsaKeyPair()]);
  const caKey = forge.pki.privateKeyFromPem(caKeys.privateKey);
  const caName = [{ name: "commonName", value: "chargeguard sandbox local CA" }];
  const ca = certificate(forge, forge.pki.publicKeyFromPem(caKeys.publicKey), caName, caName, [
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
  ]);
  ca.sign(caKey, forge.md.sha256.create());
  const server = certificate(forge, forge.pki.publicKeyFromPem(serverKeys.publicKey), [{ name: "commonName", value: "127.0.0.1" }], caName, [
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }, { type: 2, value: "localhost" }] },
  ]);
  server.sign(caKey, forge.md.sha256.create());
  const made = directory === undefined;
  const home = directory ?? (await mkdtemp(join(tmpdir(), "chargeguard-sandbox-ca-")));
  const caFile = join(home, "chargeguard-sandbox-ca.pem");
  await writeFile(caFile, forge.pki.certificateToPem(ca));
  return {
    caFile,
    key: serverKeys.privateKey,
    cert: forge.pki.certificateToPem(server),
    remove: () => rm(made ? home : caFile, { recursive: true, force: true }),
  };
}

async function rsaKeyPair(): Promise<{ publicKey: string; privateKey: string }> {
  return promisify(generateKeyPair)("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
  });
}

type Forge = typeof import("node-forge");
type Name = { name: string; value: string }[];

function certificate(forge: Forge, publicKey: import("node-forge").pki.PublicKey, subject: Name, issuer: Name, extensions: object[]) {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = serialNumber();
  const now = Date.now();
  cert.validity.notBefore = new Date(now - 3_600_000);
  cert.validity.notAfter = new Date(now + validForMs);
  cert.setSubject(subject);
  cert.setIssuer(issuer);
  cert.setExtensions(extensions);
  return cert;
}

/**
 * 16 random bytes as DER wants an INTEGER serial: positive (the first byte's high bit clear) and minimal (that byte not
 * zero). A leading "0" on 30 hex digits made forge write a zero byte ahead of the random ones, and when the next byte's
 * high bit was clear OpenSSL refused the certificate ("asn1 encoding routines::illegal padding"): half the servers
 * failed to listen, and Python's clients refused half the CA files.
 */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] as number) & 0x7f) | 0x01;
  return bytes.toString("hex");
}
