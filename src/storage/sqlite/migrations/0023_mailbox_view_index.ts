// The IMAP and POP3 views of an inbox (UID, size, flags per message) read from one covering index,
// so opening a mailbox of a million messages walks ~20 bytes of index per message instead of
// each ~4 KB row (issue 19: SELECT and POP3 log-in read every row and froze the server for
// seconds). The columns are the ones protocols/imap/mailbox.ts and pop3/maildrop.ts keep.
export default /* sql */ `
CREATE INDEX messages_mailbox ON messages(inbox_id, uid, size_bytes, read, flagged, deleted_flag);
`;
