// Inboxes, messages, attachments and device watches.
export default /* sql */ `
CREATE TABLE inboxes (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  address TEXT NOT NULL UNIQUE,
  local_part TEXT NOT NULL,
  domain TEXT NOT NULL,
  domain_id TEXT,
  name TEXT,
  type TEXT NOT NULL CHECK (type IN ('disposable','persistent')),
  status TEXT NOT NULL DEFAULT 'active',
  password_enc TEXT NOT NULL,
  uid_validity INTEGER NOT NULL,
  uid_next INTEGER NOT NULL DEFAULT 1,
  expires_at TEXT,
  expiring_alerted_at TEXT,
  created_by_session TEXT,
  message_count INTEGER NOT NULL DEFAULT 0,
  unread_count INTEGER NOT NULL DEFAULT 0,
  used_bytes INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE INDEX inboxes_project ON inboxes(project_id, id);
CREATE INDEX inboxes_expiry ON inboxes(expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE messages (
  id TEXT PRIMARY KEY,
  inbox_id TEXT NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL,
  uid INTEGER NOT NULL,
  blob_key TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  logical_size_bytes INTEGER NOT NULL,
  envelope_from TEXT,
  envelope_to TEXT NOT NULL,
  from_email TEXT NOT NULL DEFAULT '',
  from_name TEXT NOT NULL DEFAULT '',
  to_json TEXT NOT NULL DEFAULT '[]',
  cc_json TEXT NOT NULL DEFAULT '[]',
  subject TEXT NOT NULL DEFAULT '',
  preview TEXT NOT NULL DEFAULT '',
  text_body TEXT,
  html_body TEXT,
  codes TEXT NOT NULL DEFAULT '[]',
  links TEXT NOT NULL DEFAULT '[]',
  headers TEXT NOT NULL DEFAULT '[]',
  headers_truncated INTEGER NOT NULL DEFAULT 0,
  message_id_header TEXT,
  sent_at TEXT,
  attachment_count INTEGER NOT NULL DEFAULT 0,
  parse_error TEXT,
  read INTEGER NOT NULL DEFAULT 0,
  flagged INTEGER NOT NULL DEFAULT 0,
  deleted_flag INTEGER NOT NULL DEFAULT 0,
  received_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  UNIQUE (inbox_id, uid)
);
CREATE INDEX messages_inbox ON messages(inbox_id, id);
CREATE INDEX messages_blob ON messages(blob_key);
CREATE INDEX messages_expiry ON messages(expires_at);
CREATE TABLE attachments (
  id TEXT PRIMARY KEY,
  message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  filename TEXT NOT NULL,
  declared_content_type TEXT NOT NULL,
  served_content_type TEXT NOT NULL,
  disposition TEXT NOT NULL DEFAULT 'attachment',
  content_id TEXT,
  size_bytes INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  blob_key TEXT NOT NULL
);
CREATE INDEX attachments_message ON attachments(message_id, position);
CREATE INDEX attachments_blob ON attachments(blob_key);
CREATE TABLE inbox_watches (
  inbox_id TEXT NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  device_session_id TEXT NOT NULL REFERENCES device_sessions(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (inbox_id, device_session_id)
);
CREATE INDEX inbox_watches_device ON inbox_watches(device_session_id);
ALTER TABLE teams ADD COLUMN used_bytes INTEGER NOT NULL DEFAULT 0;

-- Counters kept exact by the database itself, whichever channel (SMTP, REST, IMAP, POP3,
-- expiry) changes a message.
CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
  UPDATE inboxes SET message_count = message_count + 1,
    unread_count = unread_count + (1 - NEW.read),
    used_bytes = used_bytes + NEW.size_bytes
  WHERE id = NEW.inbox_id;
  UPDATE teams SET used_bytes = used_bytes + NEW.size_bytes
  WHERE id = (SELECT team_id FROM projects WHERE id = NEW.project_id);
END;
CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
  UPDATE inboxes SET message_count = message_count - 1,
    unread_count = unread_count - (1 - OLD.read),
    used_bytes = used_bytes - OLD.size_bytes
  WHERE id = OLD.inbox_id;
  UPDATE teams SET used_bytes = used_bytes - OLD.size_bytes
  WHERE id = (SELECT team_id FROM projects WHERE id = OLD.project_id);
END;
CREATE TRIGGER messages_au_read AFTER UPDATE OF read ON messages WHEN OLD.read <> NEW.read BEGIN
  UPDATE inboxes SET unread_count = unread_count + (OLD.read - NEW.read) WHERE id = NEW.inbox_id;
END;
`;
