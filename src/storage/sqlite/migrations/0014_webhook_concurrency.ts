// Webhooks deliver concurrently (no more one-at-a-time per inbox), so the queue index by order key
// goes; claims and the next-due time are index probes per webhook, whose cost does not grow with
// the backlog. Each webhook keeps a circuit breaker (consecutive failures, open until) and numbers
// its deliveries (`sequence` in the payload: receivers order by it, Standard Webhooks promises no order).
export default /* sql */ `
DROP INDEX webhook_deliveries_queue;
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(webhook_id, next_attempt_at) WHERE status = 'pending';
ALTER TABLE webhook_deliveries ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE webhooks ADD COLUMN delivery_seq INTEGER NOT NULL DEFAULT 0;
-- paused by an operator: deliveries queue, none is tried until resumed
ALTER TABLE webhooks ADD COLUMN paused INTEGER NOT NULL DEFAULT 0;
ALTER TABLE webhooks ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE webhooks ADD COLUMN circuit_open_until INTEGER NOT NULL DEFAULT 0;
ALTER TABLE webhooks ADD COLUMN last_success_at TEXT;
ALTER TABLE webhooks ADD COLUMN last_failure_at TEXT;
`;
