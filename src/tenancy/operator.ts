// The instance's operator: who may change what belongs to the instance rather than to a project
// (the SMTP listeners' connect-time chaos, docs/chaos.md). It is a principal of the bootstrap team
// (the team made on first start, whose first project holds the catch-all inbox) holding `*`: the
// bootstrap API key, another `*` key of that team, or an owner's or admin's device session.
import type { AppContext } from "../runtime/context";
import { DomainError } from "../lib/errors";
import type { Principal } from "./auth";

/** The team made on first start (bootstrap.ts); team names are unique. */
export const BOOTSTRAP_TEAM = "default";

export class InstanceOperators {
  /** The bootstrap team's id, once known (a team is never renamed or deleted). */
  private teamId: string | null = null;

  constructor(private readonly ctx: AppContext) {}

  async require(p: Principal, what: string): Promise<void> {
    this.teamId ??= (await this.ctx.storage.teams.byName(BOOTSTRAP_TEAM))?.id ?? null;
    if (p.teamId === this.teamId && p.scopes.includes("*")) return;
    throw new DomainError(
      "forbidden",
      "principal_not_permitted",
      `only the instance's operator may change ${what}: a credential of the bootstrap team with scope * (its bootstrap API key, or an owner or admin signed in)`,
    );
  }
}
