// Search (docs/search.md): a full-text index over each message's subject, body, sender (name and
// address) and recipients (To, Cc names and addresses, the envelope recipient), and the index
// that makes project-wide lists (GET /v1/messages) walk newest first.
//
// messages_fts is contentless (it stores no copy of the text, only the index) with
// contentless_delete, so a row can be deleted by rowid; its rowid is the messages row's rowid
// (nothing here VACUUMs, which alone could renumber those). The repository inserts the index row
// with the message (src/storage/sqlite/messages.ts, body = text body + HTML body as text, computed at
// parse time); the trigger removes it with the message, whichever path deletes (a message, an
// inbox's cascade, expiry). unicode61 with remove_diacritics 2 folds case and accents: "cafe"
// finds "Café".
//
// Backfill: rows stored before this migration are indexed from the text body, or when they have
// none from the raw HTML body (SQL cannot convert HTML; its tags index as extra words).
export default /* sql */ `
CREATE VIRTUAL TABLE messages_fts USING fts5(
  subject, body, sender, recipients,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO messages_fts (rowid, subject, body, sender, recipients)
  SELECT rowid, subject, COALESCE(text_body, html_body, ''), from_name || ' ' || from_email,
    envelope_to || ' ' ||
    COALESCE((SELECT group_concat(COALESCE(a.value ->> 'name', '') || ' ' || COALESCE(a.value ->> 'email', ''), ' ') FROM json_each(to_json) a), '') || ' ' ||
    COALESCE((SELECT group_concat(COALESCE(a.value ->> 'name', '') || ' ' || COALESCE(a.value ->> 'email', ''), ' ') FROM json_each(cc_json) a), '')
  FROM messages;
CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages BEGIN
  DELETE FROM messages_fts WHERE rowid = OLD.rowid;
END;
CREATE INDEX messages_project ON messages(project_id, id);
`;
