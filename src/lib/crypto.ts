// Secrets at rest: API keys and device tokens are stored as sha256 (they are random, high-entropy),
// values we must give back (inbox passwords, scenario secrets, DKIM keys) are AES-256-GCM encrypted
// with the instance key (INBOXD_SECRET_KEY or data/secret.key).
import { createHash, createHmac, randomBytes, createCipheriv, createDecipheriv, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString("base64url");
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class Sealer {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("secret key must be 32 bytes");
  }

  static fromDataDir(dataDir: string, hexKey: string | null): Sealer {
    if (hexKey) return new Sealer(Buffer.from(hexKey, "hex"));
    const file = join(dataDir, "secret.key");
    if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("hex") + "\n", { mode: 0o600 });
    return new Sealer(Buffer.from(readFileSync(file, "utf8").trim(), "hex"));
  }

  /**
   * HMAC-SHA256 (hex) of `text` under the instance key, for a fingerprint of something that may
   * hold a low-entropy secret (a plain sha256 of it could be brute-forced from the database file).
   * `purpose` keeps fingerprints of different uses apart.
   */
  mac(purpose: string, text: string): string {
    return createHmac("sha256", this.key).update(purpose).update("\0").update(text).digest("hex");
  }

  /** Returns "v1.<iv>.<tag>.<ciphertext>" in base64url. */
  seal(plain: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv("aes-256-gcm", this.key, iv);
    const ct = Buffer.concat([c.update(plain, "utf8"), c.final()]);
    return ["v1", iv.toString("base64url"), c.getAuthTag().toString("base64url"), ct.toString("base64url")].join(".");
  }

  open(sealed: string): string {
    const [v, iv, tag, ct] = sealed.split(".");
    if (v !== "v1" || !iv || !tag || ct === undefined) throw new Error("malformed sealed value");
    const d = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
    d.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([d.update(Buffer.from(ct, "base64url")), d.final()]).toString("utf8");
  }
}
