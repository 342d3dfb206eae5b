// Signing after the Standard Webhooks specification (standardwebhooks.com), which receivers
// already verify with the reference libraries: the signed content is `${id}.${timestamp}.${body}`,
// the key is the base64 part of `whsec_<base64>`, the signature is HMAC-SHA256 in base64, sent as
// `v1,<sig>`; several signatures (secret rotation) are space-separated.
import { createHmac, randomBytes } from "node:crypto";

export const SECRET_PREFIX = "whsec_";

/** A new signing secret: 32 random bytes (the spec asks for 24..64). */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64");
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
}

export function signOne(secret: string, id: string, timestamp: number, body: string): string {
  return "v1," + createHmac("sha256", keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest("base64");
}

/** The three headers of one delivery attempt, signed with every given secret. */
export function signedHeaders(secrets: string[], id: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": secrets.map((s) => signOne(s, id, timestamp, body)).join(" "),
  };
}
