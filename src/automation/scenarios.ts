// Scenarios (an editable draft under optimistic concurrency) and their published, immutable,
// numbered versions.
import type { AppContext } from "../runtime/context";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { DomainError, notFound, validation } from "../lib/errors";
import { analyze, canonicalJson, definitionHash, SCHEMA_VERSION, type Analysis } from "./scenario-definition";
import type { ScenarioSecretService } from "./scenario-secrets";
import type { ScenarioRow, VersionRow } from "../storage/automation";

export type { ScenarioRow, VersionRow };

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

  private get store() {
    return this.ctx.storage.scenarios;
  }

  private checkName(name: unknown): string {
    if (typeof name !== "string" || name.trim() === "" || name.length > 200)
      throw validation("name must be 1..200 characters", { field: "name" });
    return name.trim();
  }

  private checkDefinition(def: unknown): string {
    if (def === null || typeof def !== "object" || Array.isArray(def))
      throw validation("draft_definition must be an object", { field: "draft_definition" });
    const text = JSON.stringify(def);
    if (text.length > MAX_DEFINITION_BYTES)
      throw validation(`draft_definition is at most ${MAX_DEFINITION_BYTES} bytes`, { field: "draft_definition" });
    return text;
  }

  async create(projectId: string, input: ScenarioInput): Promise<ScenarioRow> {
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
    await this.store.insert(row);
    return row;
  }

  list(projectId: string, cursor: string | undefined, limit: number): Promise<ScenarioRow[]> {
    return this.store.listLive(projectId, cursor ?? null, limit + 1);
  }

  async get(projectId: string, id: string): Promise<ScenarioRow> {
    const row = await this.store.liveInProject(projectId, id);
    if (!row) throw notFound("scenario");
    return row;
  }

  /** Updates the draft when `ifMatch` equals draft_revision (412 otherwise; 428 when absent). */
  async update(projectId: string, id: string, ifMatch: number | null, input: ScenarioInput): Promise<ScenarioRow> {
    const row = await this.get(projectId, id);
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
    const updated = await this.store.updateDraft(id, ifMatch, { name, description, draft_definition: draft, updated_at: now });
    if (!updated) {
      const current = await this.get(projectId, id);
      throw new DomainError(
        "precondition_failed",
        "precondition_failed",
        `If-Match ${ifMatch} does not match draft_revision ${current.draft_revision}`,
        {
          header: "If-Match",
          draft_revision: current.draft_revision,
        },
      );
    }
    return updated;
  }

  async delete(projectId: string, id: string): Promise<void> {
    if (!(await this.store.softDelete(projectId, id, nowIso()))) throw notFound("scenario");
  }

  async analyze(projectId: string, def: unknown): Promise<Analysis> {
    return analyze(def, await this.secrets.names(projectId));
  }

  /** Publishes the draft as the next version; 422 scenario_invalid while it has errors. */
  publish(projectId: string, id: string): Promise<VersionRow> {
    return this.ctx.storage.transaction(async (tx) => {
      const row = await tx.scenarios.liveInProject(projectId, id);
      if (!row) throw notFound("scenario");
      const def = JSON.parse(row.draft_definition);
      const a = analyze(def, new Set(await tx.scenarioSecrets.names(projectId)));
      if (!a.valid) {
        throw new DomainError("invalid", "scenario_invalid", `the draft has ${a.errors.length} error(s); fix them before publishing`, {
          errors: a.errors,
        });
      }
      const last = await tx.scenarioVersions.latestNumber(id);
      const v: VersionRow = {
        id: newId(),
        scenario_id: id,
        project_id: projectId,
        version: (last ?? 0) + 1,
        schema_version: def.schema_version,
        definition: canonicalJson(def),
        definition_hash: definitionHash(def),
        required_permissions: JSON.stringify(a.required_permissions),
        has_test_mutations: a.has_test_mutations ? 1 : 0,
        published_at: nowIso(),
      };
      await tx.scenarioVersions.insert(v);
      await tx.scenarios.setCurrentVersion(id, v.id, v.published_at);
      return v;
    });
  }

  async versions(projectId: string, id: string, cursor: string | undefined, limit: number): Promise<VersionRow[]> {
    await this.get(projectId, id);
    return this.ctx.storage.scenarioVersions.list(id, cursor ?? null, limit + 1);
  }

  async version(projectId: string, id: string, version: number): Promise<VersionRow> {
    await this.get(projectId, id);
    const row = await this.ctx.storage.scenarioVersions.byNumber(id, version);
    if (!row) throw notFound("scenario version");
    return row;
  }

  versionById(id: string): Promise<VersionRow | null> {
    return this.ctx.storage.scenarioVersions.byId(id);
  }

  async view(row: ScenarioRow) {
    const cur = row.current_version_id ? await this.versionById(row.current_version_id) : null;
    const draft = JSON.parse(row.draft_definition);
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      draft_definition: draft,
      draft_revision: row.draft_revision,
      current_version: cur ? { id: cur.id, version: cur.version, published_at: cur.published_at } : null,
      errors: (await this.analyze(row.project_id, draft)).errors,
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
