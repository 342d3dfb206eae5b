// SQLite implementation of the domains repositories (src/storage/domains.ts). Every method is
// synchronous inside (see connection.ts).
import type { DomainCheck, DomainRecord, DomainRepository, DomainsRepositories, RelatedDomainClaim } from "../domains";
import type { SqliteConnection } from "./connection";
import { inboxFromRow } from "../row-records";

/** Several projects may claim a name while verification is on; the first one verified wins it. */
const NO_OTHER_VERIFIED =
  "NOT EXISTS (SELECT 1 FROM domains o WHERE o.domain = domains.domain AND o.status = 'verified' AND o.id <> domains.id)";

class SqliteDomains implements DomainRepository {
  constructor(private readonly c: SqliteConnection) {}

  async inProject(projectId: string, id: string) {
    return this.c.get<DomainRecord>("SELECT * FROM domains WHERE id = ? AND project_id = ?", id, projectId);
  }

  async listInProject(projectId: string, before: string | null, limit: number) {
    return before
      ? this.c.all<DomainRecord>("SELECT * FROM domains WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?", projectId, before, limit)
      : this.c.all<DomainRecord>("SELECT * FROM domains WHERE project_id = ? ORDER BY id DESC LIMIT ?", projectId, limit);
  }

  async countForTeam(teamId: string) {
    return this.c.get<{ n: number }>(
      "SELECT COUNT(*) AS n FROM domains d JOIN projects p ON p.id = d.project_id WHERE p.team_id = ?",
      teamId,
    )!.n;
  }

  async related(domain: string) {
    // Names hold only [a-z0-9.-] (normalise), so LIKE's wildcards cannot occur in them.
    return this.c.all<RelatedDomainClaim>(
      `SELECT d.domain, d.project_id AS projectId, p.team_id AS teamId, d.status FROM domains d JOIN projects p ON p.id = d.project_id
       WHERE d.domain = ?1 OR ?1 LIKE '%.' || d.domain OR d.domain LIKE '%.' || ?1`,
      domain,
    );
  }

  async insert(r: DomainRecord) {
    this.c.run(
      `INSERT INTO domains (id, project_id, domain, mode, status, dkim_selector, dkim_private_key_enc, dkim_public_key,
         ownership_token, catch_all_inbox_id, verified_at, last_checked_at, failure_reason, record_status, check_claimed_until, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      r.id,
      r.project_id,
      r.domain,
      r.mode,
      r.status,
      r.dkim_selector,
      r.dkim_private_key_enc,
      r.dkim_public_key,
      r.ownership_token,
      r.catch_all_inbox_id,
      r.verified_at,
      r.last_checked_at,
      r.failure_reason,
      r.record_status,
      r.check_claimed_until,
      r.created_at,
    );
  }

  async deleteInProject(projectId: string, id: string) {
    this.c.run("DELETE FROM domains WHERE id = ? AND project_id = ?", id, projectId);
  }

  async setCatchAll(projectId: string, id: string, inboxId: string | null) {
    this.c.run("UPDATE domains SET catch_all_inbox_id = ? WHERE id = ? AND project_id = ?", inboxId, id, projectId);
  }

  async mailboxIds(projectId: string, id: string) {
    return this.c
      .all<{ id: string }>("SELECT id FROM inboxes WHERE domain_id = ? AND project_id = ? ORDER BY id", id, projectId)
      .map((r) => r.id);
  }

  async catchAllInbox(domain: string) {
    const r = this.c.get<Record<string, any>>(
      `SELECT i.* FROM domains d JOIN inboxes i ON i.id = d.catch_all_inbox_id
       WHERE d.domain = ? AND d.status = 'verified' AND i.project_id = d.project_id`,
      domain,
    );
    return r ? inboxFromRow(r) : null;
  }

  async recordCheck(id: string, check: DomainCheck) {
    this.c.run("UPDATE domains SET last_checked_at = ?, record_status = ? WHERE id = ?", check.at, check.recordStatus, id);
  }

  async markVerified(id: string, check: DomainCheck) {
    return (
      this.c.run(
        `UPDATE domains SET status = 'verified', verified_at = ?, last_checked_at = ?, failure_reason = NULL, record_status = ?
         WHERE id = ? AND ${NO_OTHER_VERIFIED}`,
        check.at,
        check.at,
        check.recordStatus,
        id,
      ).changes > 0
    );
  }

  async markFailed(id: string, check: DomainCheck, reason: string) {
    this.c.run(
      "UPDATE domains SET status = 'failed', last_checked_at = ?, failure_reason = ?, record_status = ? WHERE id = ?",
      check.at,
      reason,
      check.recordStatus,
      id,
    );
  }

  async claimDue(claimUntil: string, dueBefore: string, now: string, limit: number) {
    return this.c.all<DomainRecord>(
      `UPDATE domains SET check_claimed_until = ?
       WHERE id IN (
         SELECT id FROM domains
         WHERE status = 'pending' AND (last_checked_at IS NULL OR last_checked_at <= ?)
           AND (check_claimed_until IS NULL OR check_claimed_until < ?)
         ORDER BY last_checked_at IS NOT NULL, last_checked_at LIMIT ?)
       RETURNING *`,
      claimUntil,
      dueBefore,
      now,
      limit,
    );
  }

  async finishClaimedCheck(id: string, check: DomainCheck, outcome: { status: "verified" | "failed" | null; reason: string | null }) {
    if (outcome.status === "verified") {
      return (
        this.c.run(
          `UPDATE domains SET status = 'verified', verified_at = ?, last_checked_at = ?, failure_reason = NULL,
           record_status = ?, check_claimed_until = NULL WHERE id = ? AND status = 'pending' AND ${NO_OTHER_VERIFIED}`,
          check.at,
          check.at,
          check.recordStatus,
          id,
        ).changes > 0
      );
    }
    if (outcome.status === "failed") {
      this.c.run(
        `UPDATE domains SET status = 'failed', last_checked_at = ?, failure_reason = ?, record_status = ?,
           check_claimed_until = NULL WHERE id = ? AND status = 'pending'`,
        check.at,
        outcome.reason,
        check.recordStatus,
        id,
      );
    } else {
      this.c.run(
        "UPDATE domains SET last_checked_at = ?, record_status = ?, check_claimed_until = NULL WHERE id = ? AND status = 'pending'",
        check.at,
        check.recordStatus,
        id,
      );
    }
    return true;
  }
}

export function sqliteDomainsRepositories(c: SqliteConnection): DomainsRepositories {
  return { domains: new SqliteDomains(c) };
}
