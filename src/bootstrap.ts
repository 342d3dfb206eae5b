// First start on an empty data directory: one team, its owner, one project (environment live)
// and a '*' API key. The key and the password are printed once; INBOXD_BOOTSTRAP_KEY and
// INBOXD_ADMIN_* fix them for CI (the password, or its hash: INBOXD_ADMIN_PASSWORD_HASH).
import type { AppContext } from "./runtime/context";
import type { Services } from "./services";
import { newKeySecret } from "./tenancy/api-keys";
import { randomToken } from "./lib/crypto";
import { hashToken } from "./lib/crypto";
import { BOOTSTRAP_TEAM } from "./tenancy/operator";

export { BOOTSTRAP_TEAM };

export async function bootstrap(ctx: AppContext, s: Services, log: (line: string) => void): Promise<void> {
  const { config } = ctx;
  const created = await s.identity.isEmpty();
  if (created) {
    const password = config.adminPassword ?? randomToken(12);
    const secret = config.bootstrapKey ?? newKeySecret();
    const team = await s.identity.createTeam(BOOTSTRAP_TEAM, config.plan);
    const owner = { teamId: team.id, email: config.adminEmail, role: "owner", name: "Admin" } as const;
    await s.identity.createUser(config.adminPasswordHash ? { ...owner, passwordHash: config.adminPasswordHash } : { ...owner, password });
    const project = await s.identity.createProject(team.id, "Default", "default");
    await s.apiKeys.insert(project.id, "bootstrap", ["*"], secret);
    log(`bootstrap: team "${team.name}", project "${project.slug}" (${project.id})`);
    // A secret the operator gave is never echoed, nor is its source named: the line says only that
    // it was given, so a CI log shows nothing worth scanning for.
    const given = config.adminPassword !== null || config.adminPasswordHash !== null;
    log(`bootstrap: owner ${config.adminEmail} password: ${given ? "(as configured, not shown)" : password}`);
    log(`bootstrap: API key (scope *): ${config.bootstrapKey ? "(as configured, not shown)" : secret}`);
  }
  // Capture of any recipient: the bootstrap project holds the instance's catch-all inbox (made on
  // first start, and on the first start of an instance created before it existed).
  if (config.catchAll === "on" && !(await ctx.storage.inboxes.catchAll())) {
    const project = await ctx.storage.projects.firstOfTeamNamed(BOOTSTRAP_TEAM);
    const ref = project ? await s.auth.project(project.id) : null;
    if (ref) {
      const inbox = await s.inboxes.ensureCatchAll(ref);
      log(`bootstrap: catch-all inbox ${inbox.address} takes mail to any address no inbox has`);
    }
  }
  // A fixed bootstrap key is honoured on every start, so CI can restart with the same secret. A changed
  // one replaces the bootstrap key: the previous ones are revoked, as an operator rotating a leaked key
  // expects (their sessions and streams end with them).
  if (config.bootstrapKey && !created) {
    const hash = hashToken(config.bootstrapKey);
    if (!(await ctx.storage.apiKeys.secretHashExists(hash))) {
      const project = await ctx.storage.projects.firstOfTeamNamed(BOOTSTRAP_TEAM);
      if (project) {
        const previous = await bootstrapKeys(ctx, project.id);
        await s.apiKeys.insert(project.id, "bootstrap", ["*"], config.bootstrapKey);
        for (const old of previous) {
          await s.apiKeys.revoke(project.id, old.id);
          log(`bootstrap: INBOXD_BOOTSTRAP_KEY changed: the previous bootstrap key …${old.lastFour} is revoked`);
        }
      }
    }
  }
}

/** The project's unrevoked keys that a bootstrap made (named "bootstrap", scope *). */
async function bootstrapKeys(ctx: AppContext, projectId: string) {
  const out = [];
  for (let before: string | null = null; ; ) {
    const page = await ctx.storage.apiKeys.listInProject(projectId, before, 100);
    for (const k of page) if (k.name === "bootstrap" && !k.revokedAt && k.scopes.includes("*")) out.push(k);
    if (page.length < 100) return out;
    before = page[page.length - 1]!.id;
  }
}
