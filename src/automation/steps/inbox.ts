// inbox.create and inbox.delete: through the inbox service and the one removal path, so plan
// limits, addresses and blob release behave exactly as for an API caller.
import { DomainError } from "../../lib/errors";
import type { Principal } from "../../tenancy/auth";
import { StepError, type StepHandler } from "./types";

export const inboxCreate: StepHandler = async (sc, p) => {
  // The run acts as a key-like principal holding the agent's permissions (never a device).
  const principal: Principal = {
    kind: "api_key",
    id: sc.runId,
    userId: null,
    teamId: sc.project.teamId,
    role: null,
    projectId: sc.project.id,
    scopes: sc.agentPermissions,
  };
  try {
    const row = await sc.deps.inboxes.create(principal, sc.project, {
      name: p.inbox_name ?? `run ${sc.runId}`,
      ttl_seconds: p.ttl_seconds ?? 3600,
      local_part: p.local_part,
    });
    await sc.ledger("inbox", row.id);
    return { id: row.id, address: row.address };
  } catch (e) {
    if (e instanceof DomainError) throw new StepError(e.code, `inbox.create: ${e.message}`);
    throw e;
  }
};

export const inboxDelete: StepHandler = async (sc, p) => {
  const id = String(p.inbox);
  if (!(await sc.deps.removal.deleteInbox(sc.project.id, id)))
    throw new StepError("inbox_not_found", `inbox.delete: no inbox ${id} in this project`);
  await sc.ledgerRemoved("inbox", id);
  return { deleted: true, id };
};
