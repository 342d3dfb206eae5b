// The event types a webhook can subscribe to: pure data, shared with the web UI's form.
export const WEBHOOK_EVENT_TYPES = ["message.received", "inbox.expiring", "inbox.expired", "run.finished", "approval.pending"] as const;
