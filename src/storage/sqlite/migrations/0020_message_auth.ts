// SPF, DKIM, DMARC and ARC results of a message (docs/analysis.md). The row is written by the
// transaction that stores the message, with what the check needs from the SMTP session (client
// IP, HELO), and completed after the commit by the checker (mail/auth-check.ts), which never
// delays the 250. verdict NULL = not checked yet; the partial index is that queue, so a restart
// finds what a kill -9 left unchecked without scanning.
export default /* sql */ `
CREATE TABLE message_auth (
  message_id TEXT PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
  client_ip TEXT,
  helo TEXT,
  verdict TEXT CHECK (verdict IN ('pass', 'fail', 'none')),
  result_json TEXT,
  checked_at TEXT
);
CREATE INDEX message_auth_pending ON message_auth (message_id) WHERE verdict IS NULL;
`;
