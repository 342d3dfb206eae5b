// Storage close to the raw size (issue 19). Measured on the corpus of bench/corpus.ts (14 KB
// ESP-style mail): 41.5 KiB on disk per message (2.97x), of which the raw copy 14.8 KiB, the parsed
// HTML body 14.8 KiB and the message.received event 4.1 KiB (bench/storage-size.ts).
// - blobs_inline.codec: 0 = bytes as received (every row written before this migration), 1 =
//   zstd frame; raw_size is the size of the bytes as received (size() without decompressing).
//   Old rows stay as they are and read as before.
// - messages.text_z, html_z: the text and HTML bodies as zstd frames, text_body / html_body then
//   NULL (storage/sqlite/compression.ts).
// - events.message_id: the message a message.received event describes. The event goes when its
//   message goes (trigger below), unless a webhook delivery of it is still pending (the delivery
//   needs its payload; the 2-day prune takes the row later). The partial index on pending
//   deliveries' event_id keeps that test a lookup.
export default /* sql */ `
ALTER TABLE blobs_inline ADD COLUMN codec INTEGER NOT NULL DEFAULT 0;
ALTER TABLE blobs_inline ADD COLUMN raw_size INTEGER;
ALTER TABLE messages ADD COLUMN text_z BLOB;
ALTER TABLE messages ADD COLUMN html_z BLOB;
ALTER TABLE events ADD COLUMN message_id TEXT;
CREATE INDEX events_message ON events(message_id) WHERE message_id IS NOT NULL;
CREATE INDEX webhook_deliveries_pending_event ON webhook_deliveries(event_id) WHERE status = 'pending';
CREATE TRIGGER messages_ad_events AFTER DELETE ON messages BEGIN
  DELETE FROM events WHERE message_id = OLD.id
    AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id AND d.status = 'pending');
END;
`;
