// PostgreSQL implementation of the automation repositories that hold what a run executes (scenarios,
// versions, secrets; src/storage/automation.ts), the SQLite ones (../sqlite/scenarios.ts) statement
// for statement; the conformance test runs both.
import type {
  ScenarioRepository,
  ScenarioRow,
  ScenarioSecretRepository,
  ScenarioVersionRepository,
  SecretRow,
  VersionRow,
} from "../automation";
import type { PgClient } from "./connection";

export class PgScenarioSecrets implements ScenarioSecretRepository {
  constructor(private readonly c: PgClient) {}

  async insertIfAbsent(r: SecretRow): Promise<boolean> {
    return (
      (await this.c.run(
        "INSERT INTO scenario_secrets (id, project_id, name, value_enc, version, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
        r.id,
        r.project_id,
        r.name,
        r.value_enc,
        r.version,
        r.created_at,
        r.updated_at,
      )) > 0
    );
  }

  async list(projectId: string, before: string | null, limit: number): Promise<SecretRow[]> {
    return before
      ? await this.c.rows<SecretRow>(
          "SELECT * FROM scenario_secrets WHERE project_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3",
          projectId,
          before,
          limit,
        )
      : await this.c.rows<SecretRow>("SELECT * FROM scenario_secrets WHERE project_id = $1 ORDER BY id DESC LIMIT $2", projectId, limit);
  }

  async inProject(projectId: string, id: string): Promise<SecretRow | null> {
    return await this.c.row<SecretRow>("SELECT * FROM scenario_secrets WHERE id = $1 AND project_id = $2", id, projectId);
  }

  async rotate(projectId: string, id: string, valueEnc: string, at: string): Promise<SecretRow | null> {
    return await this.c.row<SecretRow>(
      "UPDATE scenario_secrets SET value_enc = $1, version = version + 1, rotated_at = $2, updated_at = $3 WHERE id = $4 AND project_id = $5 RETURNING *",
      valueEnc,
      at,
      at,
      id,
      projectId,
    );
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    return (await this.c.run("DELETE FROM scenario_secrets WHERE id = $1 AND project_id = $2", id, projectId)) > 0;
  }

  async names(projectId: string): Promise<string[]> {
    return (await this.c.rows<{ name: string }>("SELECT name FROM scenario_secrets WHERE project_id = $1", projectId)).map((r) => r.name);
  }

  async takeForUse(projectId: string, names: string[], at: string): Promise<Array<{ name: string; value_enc: string }>> {
    const out: Array<{ name: string; value_enc: string }> = [];
    for (const name of names) {
      const row = await this.c.row<{ value_enc: string }>(
        "UPDATE scenario_secrets SET last_used_at = $1 WHERE project_id = $2 AND name = $3 RETURNING value_enc",
        at,
        projectId,
        name,
      );
      if (row) out.push({ name, value_enc: row.value_enc });
    }
    return out;
  }
}

export class PgScenarios implements ScenarioRepository {
  constructor(private readonly c: PgClient) {}

  async insert(r: ScenarioRow): Promise<void> {
    await this.c.run(
      "INSERT INTO scenarios (id, project_id, name, description, draft_definition, draft_revision, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
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
      ? await this.c.rows<ScenarioRow>(
          "SELECT * FROM scenarios WHERE project_id = $1 AND deleted_at IS NULL AND id < $2 ORDER BY id DESC LIMIT $3",
          projectId,
          before,
          limit,
        )
      : await this.c.rows<ScenarioRow>(
          "SELECT * FROM scenarios WHERE project_id = $1 AND deleted_at IS NULL ORDER BY id DESC LIMIT $2",
          projectId,
          limit,
        );
  }

  async liveInProject(projectId: string, id: string): Promise<ScenarioRow | null> {
    return await this.c.row<ScenarioRow>("SELECT * FROM scenarios WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL", id, projectId);
  }

  async updateDraft(
    id: string,
    expectedRevision: number,
    f: Pick<ScenarioRow, "name" | "description" | "draft_definition" | "updated_at">,
  ): Promise<ScenarioRow | null> {
    return await this.c.row<ScenarioRow>(
      "UPDATE scenarios SET name = $1, description = $2, draft_definition = $3, draft_revision = draft_revision + 1, updated_at = $4 WHERE id = $5 AND draft_revision = $6 AND deleted_at IS NULL RETURNING *",
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
      (await this.c.run(
        "UPDATE scenarios SET deleted_at = $1, updated_at = $2 WHERE id = $3 AND project_id = $4 AND deleted_at IS NULL",
        at,
        at,
        id,
        projectId,
      )) > 0
    );
  }

  async setCurrentVersion(id: string, versionId: string, at: string): Promise<void> {
    await this.c.run("UPDATE scenarios SET current_version_id = $1, updated_at = $2 WHERE id = $3", versionId, at, id);
  }
}

export class PgScenarioVersions implements ScenarioVersionRepository {
  constructor(private readonly c: PgClient) {}

  async latestNumber(scenarioId: string): Promise<number | null> {
    return (
      (await this.c.row<{ v: number | null }>("SELECT MAX(version) AS v FROM scenario_versions WHERE scenario_id = $1", scenarioId))?.v ??
      null
    );
  }

  async insert(v: VersionRow): Promise<void> {
    await this.c.run(
      "INSERT INTO scenario_versions (id, scenario_id, project_id, version, schema_version, definition, definition_hash, required_permissions, has_test_mutations, published_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
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
      ? await this.c.rows<VersionRow>(
          "SELECT * FROM scenario_versions WHERE scenario_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3",
          scenarioId,
          before,
          limit,
        )
      : await this.c.rows<VersionRow>(
          "SELECT * FROM scenario_versions WHERE scenario_id = $1 ORDER BY id DESC LIMIT $2",
          scenarioId,
          limit,
        );
  }

  async byNumber(scenarioId: string, version: number): Promise<VersionRow | null> {
    return await this.c.row<VersionRow>("SELECT * FROM scenario_versions WHERE scenario_id = $1 AND version = $2", scenarioId, version);
  }

  async byId(id: string): Promise<VersionRow | null> {
    return await this.c.row<VersionRow>("SELECT * FROM scenario_versions WHERE id = $1", id);
  }
}
