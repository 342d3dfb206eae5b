// Fault injection per inbox (docs/chaos.md): the SMTP replies an inbox's mail gets at RCPT or at
// the end of DATA, with a probability. Rules are evaluated in `position` order; they go with
// their inbox (ON DELETE CASCADE), whichever path deletes it (REST, expiry, a domain's removal).
export default /* sql */ `
CREATE TABLE inbox_chaos_rules (
  inbox_id TEXT NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  stage TEXT NOT NULL CHECK (stage IN ('rcpt','data')),
  code INTEGER NOT NULL CHECK (code BETWEEN 400 AND 599),
  message TEXT,
  rate REAL NOT NULL DEFAULT 1 CHECK (rate >= 0 AND rate <= 1),
  delay_ms INTEGER NOT NULL DEFAULT 0 CHECK (delay_ms >= 0),
  created_at TEXT NOT NULL,
  PRIMARY KEY (inbox_id, position)
) WITHOUT ROWID;
`;
