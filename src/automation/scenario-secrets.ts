// Scenario secrets: values a scenario uses (API tokens, passwords) without ever showing them.
// The value is AES-256-GCM sealed at rest; no operation returns it, and the run executor
// redacts it from step outputs and run events. Definitions name it by its reference string.
import type { AppContext } from "../context";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { DomainError, notFound, validation } from "../lib/errors";

export interface SecretRow {
  id: string;
  project_id: string;
  name: string;
  value_enc: string;
  version: number;
  last_used_at: string | null;
  rotated_at: string | null;
  created_at: string;
  updated_at: string;
}

export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const MAX_SECRET_BYTES = 8192;

export const secretReference = (name: string) => `\${secrets.${name}}`;

export class ScenarioSecretService {
  constructor(private readonly ctx: AppContext) {}

  private get sql() {
    return this.ctx.db.sqlite;
  }

  private checkValue(value: unknown): string {
    if (typeof value !== "string" || value.length === 0) throw validation("value must be a non-empty string", { field: "value" });
    if (Buffer.byteLength(value) > MAX_SECRET_BYTES) throw validation(`value is at most ${MAX_SECRET_BYTES} bytes`, { field: "value" });
    return value;
  }

  create(projectId: string, input: { name: string; value: string }): SecretRow {
    if (typeof input.name !== "string" || !SECRET_NAME.test(input.name)) {
      throw validation("name must be 1..64 letters, digits or underscores, not starting with a digit", { field: "name" });
    }
    const value = this.checkValue(input.value);
    const now = nowIso();
    const row: SecretRow = {
      id: newId(),
      project_id: projectId,
      name: input.name,
      value_enc: this.ctx.sealer.seal(value),
      version: 1,
      last_used_at: null,
      rotated_at: null,
      created_at: now,
      updated_at: now,
    };
    const res = this.sql
      .query("INSERT OR IGNORE INTO scenario_secrets (id, project_id, name, value_enc, version, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?)")
      .run(row.id, projectId, row.name, row.value_enc, now, now);
    if (res.changes === 0) throw new DomainError("conflict", "secret_exists", `a secret named ${row.name} exists; rotate it instead`, { field: "name" });
    return row;
  }

  list(projectId: string, cursor: string | undefined, limit: number): SecretRow[] {
    return this.sql
      .query(`SELECT * FROM scenario_secrets WHERE project_id = ? ${cursor ? "AND id < ?" : ""} ORDER BY id DESC LIMIT ?`)
      .all(...(cursor ? [projectId, cursor, limit + 1] : [projectId, limit + 1])) as SecretRow[];
  }

  get(projectId: string, id: string): SecretRow {
    const row = this.sql.query("SELECT * FROM scenario_secrets WHERE id = ? AND project_id = ?").get(id, projectId) as SecretRow | null;
    if (!row) throw notFound("scenario secret");
    return row;
  }

  rotate(projectId: string, id: string, value: string): SecretRow {
    const v = this.checkValue(value);
    const now = nowIso();
    const row = this.sql
      .query("UPDATE scenario_secrets SET value_enc = ?, version = version + 1, rotated_at = ?, updated_at = ? WHERE id = ? AND project_id = ? RETURNING *")
      .get(this.ctx.sealer.seal(v), now, now, id, projectId) as SecretRow | null;
    if (!row) throw notFound("scenario secret");
    return row;
  }

  delete(projectId: string, id: string): void {
    if (this.sql.query("DELETE FROM scenario_secrets WHERE id = ? AND project_id = ?").run(id, projectId).changes === 0) {
      throw notFound("scenario secret");
    }
  }

  /** Names that exist in the project (for definition validation). */
  names(projectId: string): Set<string> {
    return new Set((this.sql.query("SELECT name FROM scenario_secrets WHERE project_id = ?").all(projectId) as { name: string }[]).map((r) => r.name));
  }

  /** Decrypted values by name, for the executor only; marks them used. */
  resolve(projectId: string, names: string[]): Map<string, string> {
    const out = new Map<string, string>();
    if (names.length === 0) return out;
    const now = nowIso();
    for (const name of new Set(names)) {
      const row = this.sql
        .query("UPDATE scenario_secrets SET last_used_at = ? WHERE project_id = ? AND name = ? RETURNING value_enc")
        .get(now, projectId, name) as { value_enc: string } | null;
      if (row) out.set(name, this.ctx.sealer.open(row.value_enc));
    }
    return out;
  }

  view(row: SecretRow) {
    return {
      id: row.id,
      name: row.name,
      version: row.version,
      reference: secretReference(row.name),
      last_used_at: row.last_used_at,
      rotated_at: row.rotated_at,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }
}
