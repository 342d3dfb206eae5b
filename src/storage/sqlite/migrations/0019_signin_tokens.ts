// One-time web UI sign-in links (`inboxd serve` prints one at start-up; POST /v1/signin redeems it).
// Only the SHA-256 of the token is kept; a row is deleted when redeemed or found expired.
export default /* sql */ `
CREATE TABLE signin_tokens (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX signin_tokens_expires ON signin_tokens(expires_at);
`;
