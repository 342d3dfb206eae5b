// Scenario secrets: values a scenario uses (API tokens, passwords) without ever showing them.
// The value is AES-256-GCM sealed at rest; no operation returns it, and the run executor
// redacts it from step outputs and run events. Definitions name it by its reference string.
import type { AppContext } from "../runtime/context";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { DomainError, notFound, validation } from "../lib/errors";
import type { SecretRow } from "../storage/automation";

export type { SecretRow };

export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const MAX_SECRET_BYTES = 8192;

export const secretReference = (name: string) => `\${secrets.${name}}`;

export class ScenarioSecretService {
  constructor(private readonly ctx: AppContext) {}

  private get store() {
    return this.ctx.storage.scenarioSecrets;
  }

  private checkValue(value: unknown): string {
    if (typeof value !== "string" || value.length === 0) throw validation("value must be a non-empty string", { field: "value" });
    if (Buffer.byteLength(value) > MAX_SECRET_BYTES) throw validation(`value is at most ${MAX_SECRET_BYTES} bytes`, { field: "value" });
    return value;
  }

  async create(projectId: string, input: { name: string; value: string }): Promise<SecretRow> {
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
    if (!(await this.store.insertIfAbsent(row)))
      throw new DomainError("conflict", "secret_exists", `a secret named ${row.name} exists; rotate it instead`, { field: "name" });
    return row;
  }

  list(projectId: string, cursor: string | undefined, limit: number): Promise<SecretRow[]> {
    return this.store.list(projectId, cursor ?? null, limit + 1);
  }

  async get(projectId: string, id: string): Promise<SecretRow> {
    const row = await this.store.inProject(projectId, id);
    if (!row) throw notFound("scenario secret");
    return row;
  }

  async rotate(projectId: string, id: string, value: string): Promise<SecretRow> {
    const v = this.checkValue(value);
    const row = await this.store.rotate(projectId, id, this.ctx.sealer.seal(v), nowIso());
    if (!row) throw notFound("scenario secret");
    return row;
  }

  async delete(projectId: string, id: string): Promise<void> {
    if (!(await this.store.delete(projectId, id))) throw notFound("scenario secret");
  }

  /** Names that exist in the project (for definition validation). */
  async names(projectId: string): Promise<Set<string>> {
    return new Set(await this.store.names(projectId));
  }

  /** Decrypted values by name, for the executor only; marks them used. */
  async resolve(projectId: string, names: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (names.length === 0) return out;
    for (const r of await this.store.takeForUse(projectId, [...new Set(names)], nowIso()))
      out.set(r.name, this.ctx.sealer.open(r.value_enc));
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
