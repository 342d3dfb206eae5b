// Scenarios (an editable draft under optimistic concurrency) and their published, immutable,
// numbered versions.
import type { AppContext } from "../context";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { DomainError, notFound, validation } from "../lib/errors";
import { analyze, canonicalJson, definitionHash, SCHEMA_VERSION, type Analysis } from "./scenario-definition";
import type { ScenarioSecretService } from "./scenario-secrets";

export interface ScenarioRow {
  id: string;
  project_id: string;
  name: string;
  description: string;
  draft_definition: string;
  draft_revision: number;
  current_version_id: string | null;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface VersionRow {
  id: string;
  scenario_id: string;
  project_id: string;
  version: number;
  schema_version: number;
  definition: string;
  definition_hash: string;
  required_permissions: string;
  has_test_mutations: number;
  published_at: string;
}

export interface ScenarioInput {
  name?: string;
  description?: string;
  draft_definition?: unknown;
}

const EMPTY_DRAFT = { schema_version: SCHEMA_VERSION, steps: [] };
const MAX_DEFINITION_BYTES = 256 * 1024;

/** If-Match carries the draft_revision: `3`, `"3"` or `W/"3"`. */
export function parseIfMatch(header: string | null): number | null {
  if (header === null) return null;
  const m = /^\s*(?:W\/)?"?(\d{1,12})"?\s*$/.exec(header);
  if (!m) throw validation("If-Match must be the integer draft_revision", { header: "If-Match" });
  return Number(m[1]);
}

export class ScenarioService {
  constructor(
    private readonly ctx: AppContext,
    private readonly secrets: ScenarioSecretService,
  ) {}

  private get sql() {
    return this.ctx.db.sqlite;
  }

  private checkName(name: unknown): string {
    if (typeof name !== "string" || name.trim() === "" || name.length > 200) throw validation("name must be 1..200 characters", { field: "name" });
    return name.trim();
  }

  private checkDefinition(def: unknown): string {
    if (def === null || typeof def !== "object" || Array.isArray(def)) throw validation("draft_definition must be an object", { field: "draft_definition" });
    const text = JSON.stringify(def);
    if (text.length > MAX_DEFINITION_BYTES) throw validation(`draft_definition is at most ${MAX_DEFINITION_BYTES} bytes`, { field: "draft_definition" });
    return text;
  }

  create(projectId: string, input: ScenarioInput): ScenarioRow {
    const name = this.checkName(input.name);
    const description = input.description ?? "";
    const draft = this.checkDefinition(input.draft_definition ?? EMPTY_DRAFT);
    const now = nowIso();
    const row: ScenarioRow = {
      id: newId(),
      project_id: projectId,
      name,
      description,
      draft_definition: draft,
      draft_revision: 1,
      current_version_id: null,
      deleted_at: null,
      created_at: now,
      updated_at: now,
    };
    this.sql
      .query("INSERT INTO scenarios (id, project_id, name, description, draft_definition, draft_revision, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?)")
      .run(row.id, projectId, name, description, draft, now, now);
    return row;
  }

  list(projectId: string, cursor: string | undefined, limit: number): ScenarioRow[] {
    return this.sql
      .query(`SELECT * FROM scenarios WHERE project_id = ? AND deleted_at IS NULL ${cursor ? "AND id < ?" : ""} ORDER BY id DESC LIMIT ?`)
      .all(...(cursor ? [projectId, cursor, limit + 1] : [projectId, limit + 1])) as ScenarioRow[];
  }

  get(projectId: string, id: string): ScenarioRow {
    const row = this.sql.query("SELECT * FROM scenarios WHERE id = ? AND project_id = ? AND deleted_at IS NULL").get(id, projectId) as ScenarioRow | null;
    if (!row) throw notFound("scenario");
    return row;
  }

  /** Updates the draft when `ifMatch` equals draft_revision (412 otherwise; 428 when absent). */
  update(projectId: string, id: string, ifMatch: number | null, input: ScenarioInput): ScenarioRow {
    const row = this.get(projectId, id);
    if (ifMatch === null) {
      throw new DomainError("precondition_required", "precondition_required", "send If-Match with the scenario's draft_revision", {
        header: "If-Match",
        draft_revision: row.draft_revision,
      });
    }
    const name = input.name !== undefined ? this.checkName(input.name) : row.name;
    const description = input.description ?? row.description;
    const draft = input.draft_definition !== undefined ? this.checkDefinition(input.draft_definition) : row.draft_definition;
    const now = nowIso();
    const updated = this.sql
      .query(
        "UPDATE scenarios SET name = ?, description = ?, draft_definition = ?, draft_revision = draft_revision + 1, updated_at = ? WHERE id = ? AND draft_revision = ? AND deleted_at IS NULL RETURNING *",
      )
      .get(name, description, draft, now, id, ifMatch) as ScenarioRow | null;
    if (!updated) {
      const current = this.get(projectId, id);
      throw new DomainError("precondition_failed", "precondition_failed", `If-Match ${ifMatch} does not match draft_revision ${current.draft_revision}`, {
        header: "If-Match",
        draft_revision: current.draft_revision,
      });
    }
    return updated;
  }

  delete(projectId: string, id: string): void {
    const res = this.sql.query("UPDATE scenarios SET deleted_at = ?, updated_at = ? WHERE id = ? AND project_id = ? AND deleted_at IS NULL").run(nowIso(), nowIso(), id, projectId);
    if (res.changes === 0) throw notFound("scenario");
  }

  analyze(projectId: string, def: unknown): Analysis {
    return analyze(def, this.secrets.names(projectId));
  }

  /** Publishes the draft as the next version; 422 scenario_invalid while it has errors. */
  publish(projectId: string, id: string): VersionRow {
    return this.ctx.db.tx(() => {
      const row = this.get(projectId, id);
      const def = JSON.parse(row.draft_definition);
      const a = this.analyze(projectId, def);
      if (!a.valid) {
        throw new DomainError("invalid", "scenario_invalid", `the draft has ${a.errors.length} error(s); fix them before publishing`, { errors: a.errors });
      }
      const last = this.sql.query("SELECT MAX(version) AS v FROM scenario_versions WHERE scenario_id = ?").get(id) as { v: number | null };
      const v: VersionRow = {
        id: newId(),
        scenario_id: id,
        project_id: projectId,
        version: (last.v ?? 0) + 1,
        schema_version: def.schema_version,
        definition: canonicalJson(def),
        definition_hash: definitionHash(def),
        required_permissions: JSON.stringify(a.required_permissions),
        has_test_mutations: a.has_test_mutations ? 1 : 0,
        published_at: nowIso(),
      };
      this.sql
        .query(
          "INSERT INTO scenario_versions (id, scenario_id, project_id, version, schema_version, definition, definition_hash, required_permissions, has_test_mutations, published_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .run(v.id, id, projectId, v.version, v.schema_version, v.definition, v.definition_hash, v.required_permissions, v.has_test_mutations, v.published_at);
      this.sql.query("UPDATE scenarios SET current_version_id = ?, updated_at = ? WHERE id = ?").run(v.id, v.published_at, id);
      return v;
    });
  }

  versions(projectId: string, id: string, cursor: string | undefined, limit: number): VersionRow[] {
    this.get(projectId, id);
    return this.sql
      .query(`SELECT * FROM scenario_versions WHERE scenario_id = ? ${cursor ? "AND id < ?" : ""} ORDER BY id DESC LIMIT ?`)
      .all(...(cursor ? [id, cursor, limit + 1] : [id, limit + 1])) as VersionRow[];
  }

  version(projectId: string, id: string, version: number): VersionRow {
    this.get(projectId, id);
    const row = this.sql.query("SELECT * FROM scenario_versions WHERE scenario_id = ? AND version = ?").get(id, version) as VersionRow | null;
    if (!row) throw notFound("scenario version");
    return row;
  }

  versionById(id: string): VersionRow | null {
    return this.sql.query("SELECT * FROM scenario_versions WHERE id = ?").get(id) as VersionRow | null;
  }

  view(row: ScenarioRow) {
    const cur = row.current_version_id ? this.versionById(row.current_version_id) : null;
    const draft = JSON.parse(row.draft_definition);
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      draft_definition: draft,
      draft_revision: row.draft_revision,
      current_version: cur ? { id: cur.id, version: cur.version, published_at: cur.published_at } : null,
      errors: this.analyze(row.project_id, draft).errors,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  versionView(v: VersionRow) {
    return {
      id: v.id,
      version: v.version,
      schema_version: v.schema_version,
      definition: JSON.parse(v.definition),
      definition_hash: v.definition_hash,
      required_permissions: JSON.parse(v.required_permissions) as string[],
      has_test_mutations: v.has_test_mutations === 1,
      published_at: v.published_at,
    };
  }
}
