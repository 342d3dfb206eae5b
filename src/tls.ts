// TLS material for IMAP, POP3 and SMTP STARTTLS: the configured PEM files, or a self-signed
// certificate generated into the data directory at first start (SAN: public host, localhost, 127.0.0.1).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isIP } from "node:net";
import { generateKeyPair, X509Certificate } from "node:crypto";
import { promisify } from "node:util";
import { createSecureContext } from "node:tls";
import type { Config } from "./runtime/config";
import type { TlsMaterial } from "./runtime/context";
import { ConfigError } from "./runtime/config";

export async function loadTls(config: Config): Promise<TlsMaterial> {
  if (config.tlsCert && config.tlsKey) {
    let material: TlsMaterial;
    try {
      material = { cert: readFileSync(config.tlsCert, "utf8"), key: readFileSync(config.tlsKey, "utf8") };
    } catch (e: any) {
      throw new ConfigError(`INBOXD_TLS_CERT/INBOXD_TLS_KEY cannot be read: ${e.message}`);
    }
    // Checked here, before the first start's bootstrap prints its credentials, not when a listener opens.
    try {
      createSecureContext(material);
    } catch (e: any) {
      throw new ConfigError(`INBOXD_TLS_CERT/INBOXD_TLS_KEY are not a PEM certificate and its private key: ${e.message}`);
    }
    return material;
  }
  const certFile = join(config.dataDir, "tls.crt");
  const keyFile = join(config.dataDir, "tls.key");
  const names = [...new Set([config.publicHost, "localhost", "127.0.0.1"])];
  if (existsSync(certFile) && existsSync(keyFile)) {
    const cert = readFileSync(certFile, "utf8");
    // Kept across restarts, unless INBOXD_PUBLIC_HOST changed to a name it does not cover.
    if (covers(cert, names)) return { cert, key: readFileSync(keyFile, "utf8") };
  }
  const altNames = names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n }));
  const notAfter = new Date();
  notAfter.setFullYear(notAfter.getFullYear() + 10);
  // The RSA key is made by node:crypto, on the thread pool (selfsigned's own WebCrypto key generation
  // held the event loop ~0.1-0.2 s); selfsigned, loaded only here, signs the certificate for it.
  const [keyPair, { default: selfsigned }] = await Promise.all([
    promisify(generateKeyPair)("rsa", {
      modulusLength: 2048,
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
    }),
    import("selfsigned"),
  ]);
  const pems = await selfsigned.generate([{ name: "commonName", value: config.publicHost }], {
    keyPair,
    keySize: 2048,
    algorithm: "sha256",
    notAfterDate: notAfter,
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", serverAuth: true },
      { name: "subjectAltName", altNames },
    ],
  } as any);
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  writeFileSync(certFile, pems.cert);
  return { cert: pems.cert, key: pems.private };
}

function covers(pem: string, names: string[]): boolean {
  try {
    const x = new X509Certificate(pem);
    return names.every((n) => (isIP(n) ? x.checkIP(n) !== undefined : x.checkHost(n) !== undefined));
  } catch {
    return false;
  }
}
