// Search indexing leaves the commit that stores a message (docs/decisions.md, "Search index off
// the ingest commit"): the full-text index moves to its own database file, inboxd-search.db,
// written by a worker thread (storage/sqlite/search-index.ts). The message's transaction only
// appends to search_queue: op 1 "index this rowid" (the repository's insert), op 0 "drop this
// rowid" (the trigger, whichever path deletes). The worker applies the queue in seq order and
// records how far it got in the search database itself; the main connection prunes what it
// applied, always keeping the newest row so that a new seq (max + 1) is never one already applied.
// A missing or new search database is rebuilt from every message (search-index.ts).
export default /* sql */ `
DROP TRIGGER IF EXISTS messages_fts_ad;
DROP TABLE IF EXISTS messages_fts;
CREATE TABLE search_queue (
  seq INTEGER PRIMARY KEY,
  msg_rowid INTEGER NOT NULL,
  op INTEGER NOT NULL CHECK (op IN (0, 1))
);
CREATE TRIGGER search_queue_ad AFTER DELETE ON messages BEGIN
  INSERT INTO search_queue (msg_rowid, op) VALUES (OLD.rowid, 0);
END;
`;
