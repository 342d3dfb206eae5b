// The list of scheduled jobs. Each capability adds its job here.
import type { Job } from ".";
import { pruneIdempotencyKeys } from "../http/idempotency";

export const jobs: Job[] = [
  { name: "idempotency-prune", everyMs: 3600_000, run: (ctx) => pruneIdempotencyKeys(ctx) },
  // Catch-up at start-up, then every INBOXD_SWEEP_INTERVAL_MS.
  { name: "expiry", everyMs: (ctx) => ctx.config.sweepIntervalMs, run: (_ctx, s) => s.expiry.sweep() },
  // Safety net only (dispatch is woken by the bus): restarts, lapsed claims of a crashed worker.
  { name: "webhook-sweep", everyMs: 30_000, run: (_ctx, s) => s.webhookDispatcher.pump() },
  // Checks are woken by the bus; this is the catch-up after a restart and the safety net.
  { name: "auth-check", everyMs: 30_000, run: (_ctx, s) => s.analyses.auth.catchUp() },
  // PostgreSQL: large blobs a release had to keep within their grace period (storage/postgres/blob-release.ts).
  { name: "blob-sweep", everyMs: 600_000, run: (ctx) => ctx.storage.sweepBlobs() },
  { name: "events-prune", everyMs: 3600_000, run: (_ctx, s) => Promise.all([s.events.prune(), s.webhooks.prune()]) },
  { name: "approval-expiry", everyMs: 1_000, run: (_ctx, s) => s.approvals.expireDue() },
  { name: "agent-session-expiry", everyMs: 5_000, run: (_ctx, s) => s.agentSessions.expireDue() },
  // Claims queued runs and runs whose worker died (lapsed lease); launches also start at once.
  { name: "run-executor", everyMs: 1_000, run: (_ctx, s) => s.runExecutor.tick() },
  // Cheap tick; which domains are due is decided by INBOXD_DOMAIN_CHECK_INTERVAL.
  { name: "domain-verify", everyMs: 5_000, run: (_ctx, s) => s.domains.checkDue() },
];
