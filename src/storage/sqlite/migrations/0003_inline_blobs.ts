// Small blobs (raw messages and attachments up to INLINE_MAX bytes) live in SQLite, so that the
// commit that stores a message row also makes its bytes durable: one WAL fsync per group commit
// instead of a file fsync plus a directory fsync per message (see storage/blobs-tiered.ts).
export default /* sql */ `
CREATE TABLE blobs_inline (
  key TEXT PRIMARY KEY,
  bytes BLOB NOT NULL
) WITHOUT ROWID;
`;
