// PostgreSQL implementation of the domains repositories (src/storage/domains.ts), the SQLite one
// (../sqlite/domains.ts) statement for statement; the conformance test runs both.
import type { DomainCheck, DomainRecord, DomainRepository, DomainsRepositories, RelatedDomainClaim } from "../domains";
import type { PgClient } from "./connection";
import { inboxFromPgRow, num } from "./rows";

/** Several projects may claim a name while verification is on; the first one verified wins it. */
const NO_OTHER_VERIFIED =
  "NOT EXISTS (SELECT 1 FROM domains o WHERE o.domain = domains.domain AND o.status = 'verified' AND o.id <> domains.id)";

class PgDomains implements DomainRepository {
  constructor(private readonly c: PgClient) {}

  async inProject(projectId: string, id: string) {
    return await this.c.row<DomainRecord>("SELECT * FROM domains WHERE id = $1 AND project_id = $2", id, projectId);
  }

  async listInProject(projectId: string, before: string | null, limit: number) {
    return before
      ? await this.c.rows<DomainRecord>(
          "SELECT * FROM domains WHERE project_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3",
          projectId,
          before,
          limit,
        )
      : await this.c.rows<DomainRecord>("SELECT * FROM domains WHERE project_id = $1 ORDER BY id DESC LIMIT $2", projectId, limit);
  }

  async countForTeam(teamId: string) {
    const r = await this.c.row<{ n: string }>(
      "SELECT COUNT(*) AS n FROM domains d JOIN projects p ON p.id = d.project_id WHERE p.team_id = $1",
      teamId,
    );
    return num(r!.n);
  }

  async related(domain: string) {
    // Names hold only [a-z0-9.-] (normalise), so LIKE's wildcards cannot occur in them.
    return await this.c.rows<RelatedDomainClaim>(
      `SELECT d.domain, d.project_id AS "projectId", p.team_id AS "teamId", d.status FROM domains d JOIN projects p ON p.id = d.project_id
       WHERE d.domain = $1 OR $1 LIKE '%.' || d.domain OR d.domain LIKE '%.' || $1`,
      domain,
    );
  }

  async insert(r: DomainRecord) {
    await this.c.run(
      `INSERT INTO domains (id, project_id, domain, mode, status, dkim_selector, dkim_private_key_enc, dkim_public_key,
         ownership_token, catch_all_inbox_id, verified_at, last_checked_at, failure_reason, record_status, check_claimed_until, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
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
    await this.c.run("DELETE FROM domains WHERE id = $1 AND project_id = $2", id, projectId);
  }

  async setCatchAll(projectId: string, id: string, inboxId: string | null) {
    await this.c.run("UPDATE domains SET catch_all_inbox_id = $1 WHERE id = $2 AND project_id = $3", inboxId, id, projectId);
  }

  async mailboxIds(projectId: string, id: string) {
    const rows = await this.c.rows<{ id: string }>(
      "SELECT id FROM inboxes WHERE domain_id = $1 AND project_id = $2 ORDER BY id",
      id,
      projectId,
    );
    return rows.map((r) => r.id);
  }

  async catchAllInbox(domain: string) {
    const r = await this.c.row<Record<string, any>>(
      `SELECT i.* FROM domains d JOIN inboxes i ON i.id = d.catch_all_inbox_id
       WHERE d.domain = $1 AND d.status = 'verified' AND i.project_id = d.project_id`,
      domain,
    );
    return r ? inboxFromPgRow(r) : null;
  }

  async recordCheck(id: string, check: DomainCheck) {
    await this.c.run("UPDATE domains SET last_checked_at = $1, record_status = $2 WHERE id = $3", check.at, check.recordStatus, id);
  }

  async markVerified(id: string, check: DomainCheck) {
    return (
      (await this.c.run(
        `UPDATE domains SET status = 'verified', verified_at = $1, last_checked_at = $2, failure_reason = NULL, record_status = $3
         WHERE id = $4 AND ${NO_OTHER_VERIFIED}`,
        check.at,
        check.at,
        check.recordStatus,
        id,
      )) > 0
    );
  }

  async markFailed(id: string, check: DomainCheck, reason: string) {
    await this.c.run(
      "UPDATE domains SET status = 'failed', last_checked_at = $1, failure_reason = $2, record_status = $3 WHERE id = $4",
      check.at,
      reason,
      check.recordStatus,
      id,
    );
  }

  async claimDue(claimUntil: string, dueBefore: string, now: string, limit: number) {
    return await this.c.rows<DomainRecord>(
      `UPDATE domains SET check_claimed_until = $1
       WHERE id IN (
         SELECT id FROM domains
         WHERE status = 'pending' AND (last_checked_at IS NULL OR last_checked_at <= $2)
           AND (check_claimed_until IS NULL OR check_claimed_until < $3)
         ORDER BY last_checked_at IS NOT NULL, last_checked_at LIMIT $4
         FOR UPDATE SKIP LOCKED)
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
        (await this.c.run(
          `UPDATE domains SET status = 'verified', verified_at = $1, last_checked_at = $2, failure_reason = NULL,
           record_status = $3, check_claimed_until = NULL WHERE id = $4 AND status = 'pending' AND ${NO_OTHER_VERIFIED}`,
          check.at,
          check.at,
          check.recordStatus,
          id,
        )) > 0
      );
    }
    if (outcome.status === "failed") {
      await this.c.run(
        `UPDATE domains SET status = 'failed', last_checked_at = $1, failure_reason = $2, record_status = $3,
           check_claimed_until = NULL WHERE id = $4 AND status = 'pending'`,
        check.at,
        outcome.reason,
        check.recordStatus,
        id,
      );
    } else {
      await this.c.run(
        "UPDATE domains SET last_checked_at = $1, record_status = $2, check_claimed_until = NULL WHERE id = $3 AND status = 'pending'",
        check.at,
        check.recordStatus,
        id,
      );
    }
    return true;
  }
}

export function postgresDomainsRepositories(c: PgClient): DomainsRepositories {
  return { domains: new PgDomains(c) };
}
