// First start on an empty data directory: one team, its owner, one project (environment live)
// and a '*' API key. The key and the password are printed once; INBOXD_BOOTSTRAP_KEY and
// INBOXD_ADMIN_* fix them for CI.
import type { AppContext } from "./runtime/context";
import type { Services } from "./services";
import { newKeySecret } from "./tenancy/api-keys";
import { randomToken } from "./lib/crypto";
import { hashToken } from "./lib/crypto";

export const BOOTSTRAP_TEAM = "default";

export async function bootstrap(ctx: AppContext, s: Services, log: (line: string) => void): Promise<void> {
  const { config } = ctx;
  if (await s.identity.isEmpty()) {
    const password = config.adminPassword ?? randomToken(12);
    const secret = config.bootstrapKey ?? newKeySecret();
    const team = await s.identity.createTeam(BOOTSTRAP_TEAM, config.plan);
    await s.identity.createUser({ teamId: team.id, email: config.adminEmail, password, role: "owner", name: "Admin" });
    const project = await s.identity.createProject(team.id, "Default", "default");
    await s.apiKeys.insert(project.id, "bootstrap", ["*"], secret);
    log(`bootstrap: team "${team.name}", project "${project.slug}" (${project.id})`);
    log(`bootstrap: owner ${config.adminEmail} password: ${config.adminPassword ? "(from INBOXD_ADMIN_PASSWORD)" : password}`);
    log(`bootstrap: API key (scope *): ${config.bootstrapKey ? "(from INBOXD_BOOTSTRAP_KEY)" : secret}`);
    return;
  }
  // A fixed bootstrap key is honoured on every start, so CI can restart with the same secret.
  if (config.bootstrapKey) {
    const hash = hashToken(config.bootstrapKey);
    if (!(await ctx.storage.apiKeys.secretHashExists(hash))) {
      const project = await ctx.storage.projects.firstOfTeamNamed(BOOTSTRAP_TEAM);
      if (project) await s.apiKeys.insert(project.id, "bootstrap", ["*"], config.bootstrapKey);
    }
  }
}
