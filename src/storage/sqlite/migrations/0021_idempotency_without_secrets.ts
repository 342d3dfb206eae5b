// Until this release the idempotency cache stored whole answers, so a create of an API key or a
// webhook sent with an Idempotency-Key left its secret in plaintext for 24 hours, and its
// body_hash was a plain sha256 (now an HMAC under the instance key). The cache is only a 24-hour
// convenience: drop it, with secure_delete so the freed pages are zeroed rather than left
// readable in the file.
export default /* sql */ `
PRAGMA secure_delete = ON;
DELETE FROM idempotency_keys;
PRAGMA secure_delete = OFF;
`;
