// SQLite implementation of the automation repositories that hold what a run executes
// (src/storage/automation.ts): scenarios, their versions and their secrets. Every method is
// synchronous inside (see connection.ts).
import type {
  ScenarioRepository,
  ScenarioRow,
  ScenarioSecretRepository,
  ScenarioVersionRepository,
  SecretRow,
  VersionRow,
} from "../automation";
import type { SqliteConnection } from "./connection";

export class SqliteScenarioSecrets implements ScenarioSecretRepository {
  constructor(private readonly c: SqliteConnection) {}

  async insertIfAbsent(r: SecretRow): Promise<boolean> {
    return (
      this.c.run(
        "INSERT OR IGNORE INTO scenario_secrets (id, project_id, name, value_enc, version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        r.id,
        r.project_id,
        r.name,
        r.value_enc,
        r.version,
        r.created_at,
        r.updated_at,
      ).changes > 0
    );
  }

  async list(projectId: string, before: string | null, limit: number): Promise<SecretRow[]> {
    return before
      ? this.c.all<SecretRow>(
          "SELECT * FROM scenario_secrets WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
          projectId,
          before,
          limit,
        )
      : this.c.all<SecretRow>("SELECT * FROM scenario_secrets WHERE project_id = ? ORDER BY id DESC LIMIT ?", projectId, limit);
  }

  async inProject(projectId: string, id: string): Promise<SecretRow | null> {
    return this.c.get<SecretRow>("SELECT * FROM scenario_secrets WHERE id = ? AND project_id = ?", id, projectId);
  }

  async rotate(projectId: string, id: string, valueEnc: string, at: string): Promise<SecretRow | null> {
    return this.c.get<SecretRow>(
      "UPDATE scenario_secrets SET value_enc = ?, version = version + 1, rotated_at = ?, updated_at = ? WHERE id = ? AND project_id = ? RETURNING *",
      valueEnc,
      at,
      at,
      id,
      projectId,
    );
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    return this.c.run("DELETE FROM scenario_secrets WHERE id = ? AND project_id = ?", id, projectId).changes > 0;
  }

  async names(projectId: string): Promise<string[]> {
    return this.c.all<{ name: string }>("SELECT name FROM scenario_secrets WHERE project_id = ?", projectId).map((r) => r.name);
  }

  async takeForUse(projectId: string, names: string[], at: string): Promise<Array<{ name: string; value_enc: string }>> {
    const out: Array<{ name: string; value_enc: string }> = [];
    for (const name of names) {
      const row = this.c.get<{ value_enc: string }>(
        "UPDATE scenario_secrets SET last_used_at = ? WHERE project_id = ? AND name = ? RETURNING value_enc",
        at,
        projectId,
        name,
      );
      if (row) out.push({ name, value_enc: row.value_enc });
    }
    return out;
  }
}

export class SqliteScenarios implements ScenarioRepository {
  constructor(private readonly c: SqliteConnection) {}

  async insert(r: ScenarioRow): Promise<void> {
    this.c.run(
      "INSERT INTO scenarios (id, project_id, name, description, draft_definition, draft_revision, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      r.id,
      r.project_id,
      r.name,
      r.description,
      r.draft_definition,
      r.draft_revision,
      r.created_at,
      r.updated_at,
    );
  }

  async listLive(projectId: string, before: string | null, limit: number): Promise<ScenarioRow[]> {
    return before
      ? this.c.all<ScenarioRow>(
          "SELECT * FROM scenarios WHERE project_id = ? AND deleted_at IS NULL AND id < ? ORDER BY id DESC LIMIT ?",
          projectId,
          before,
          limit,
        )
      : this.c.all<ScenarioRow>(
          "SELECT * FROM scenarios WHERE project_id = ? AND deleted_at IS NULL ORDER BY id DESC LIMIT ?",
          projectId,
          limit,
        );
  }

  async liveInProject(projectId: string, id: string): Promise<ScenarioRow | null> {
    return this.c.get<ScenarioRow>("SELECT * FROM scenarios WHERE id = ? AND project_id = ? AND deleted_at IS NULL", id, projectId);
  }

  async updateDraft(
    id: string,
    expectedRevision: number,
    f: Pick<ScenarioRow, "name" | "description" | "draft_definition" | "updated_at">,
  ): Promise<ScenarioRow | null> {
    return this.c.get<ScenarioRow>(
      "UPDATE scenarios SET name = ?, description = ?, draft_definition = ?, draft_revision = draft_revision + 1, updated_at = ? WHERE id = ? AND draft_revision = ? AND deleted_at IS NULL RETURNING *",
      f.name,
      f.description,
      f.draft_definition,
      f.updated_at,
      id,
      expectedRevision,
    );
  }

  async softDelete(projectId: string, id: string, at: string): Promise<boolean> {
    return (
      this.c.run(
        "UPDATE scenarios SET deleted_at = ?, updated_at = ? WHERE id = ? AND project_id = ? AND deleted_at IS NULL",
        at,
        at,
        id,
        projectId,
      ).changes > 0
    );
  }

  async setCurrentVersion(id: string, versionId: string, at: string): Promise<void> {
    this.c.run("UPDATE scenarios SET current_version_id = ?, updated_at = ? WHERE id = ?", versionId, at, id);
  }
}

export class SqliteScenarioVersions implements ScenarioVersionRepository {
  constructor(private readonly c: SqliteConnection) {}

  async latestNumber(scenarioId: string): Promise<number | null> {
    return this.c.get<{ v: number | null }>("SELECT MAX(version) AS v FROM scenario_versions WHERE scenario_id = ?", scenarioId)?.v ?? null;
  }

  async insert(v: VersionRow): Promise<void> {
    this.c.run(
      "INSERT INTO scenario_versions (id, scenario_id, project_id, version, schema_version, definition, definition_hash, required_permissions, has_test_mutations, published_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      v.id,
      v.scenario_id,
      v.project_id,
      v.version,
      v.schema_version,
      v.definition,
      v.definition_hash,
      v.required_permissions,
      v.has_test_mutations,
      v.published_at,
    );
  }

  async list(scenarioId: string, before: string | null, limit: number): Promise<VersionRow[]> {
    return before
      ? this.c.all<VersionRow>(
          "SELECT * FROM scenario_versions WHERE scenario_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
          scenarioId,
          before,
          limit,
        )
      : this.c.all<VersionRow>("SELECT * FROM scenario_versions WHERE scenario_id = ? ORDER BY id DESC LIMIT ?", scenarioId, limit);
  }

  async byNumber(scenarioId: string, version: number): Promise<VersionRow | null> {
    return this.c.get<VersionRow>("SELECT * FROM scenario_versions WHERE scenario_id = ? AND version = ?", scenarioId, version);
  }

  async byId(id: string): Promise<VersionRow | null> {
    return this.c.get<VersionRow>("SELECT * FROM scenario_versions WHERE id = ?", id);
  }
}
