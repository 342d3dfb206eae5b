// `inboxd user add --email E --password P --role owner|admin|member [--team NAME]`
// Works on the data directory while the server runs (SQLite WAL allows a second writer process).
import { resolve } from "node:path";
import { mkdirSync } from "node:fs";
import type { Config } from "../runtime/config";
import { openStorage } from "../storage/open";
import { makeDataDirPrivate } from "../storage/private-files";
import { IdentityService } from "../tenancy/identity";
import { BOOTSTRAP_TEAM } from "../bootstrap";
import type { AppContext } from "../runtime/context";
import { DomainError } from "../lib/errors";

export async function userAdd(config: Config, args: Record<string, string>): Promise<number> {
  const { email, password, role } = args;
  const team = args.team;
  if (!email || !password || !role) {
    console.error("usage: inboxd user add --email E --password P --role owner|admin|member [--team NAME] [--name N]");
    return 2;
  }
  if (!["owner", "admin", "member"].includes(role)) {
    console.error(`--role must be owner, admin or member, got "${role}"`);
    return 2;
  }
  if (password.length < 8) {
    console.error("--password must be at least 8 characters");
    return 2;
  }
  const dataDir = resolve(config.dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  makeDataDirPrivate(dataDir);
  const storage = await openStorage({ dataDir, databaseUrl: config.databaseUrl });
  try {
    const identity = new IdentityService({ config, storage } as unknown as AppContext);
    let teamRow = await identity.teamByName(team ?? BOOTSTRAP_TEAM);
    let createdProject: { id: string; slug: string } | null = null;
    if (!teamRow) {
      if (!team) {
        console.error("no bootstrap team yet: start `inboxd serve` once, or pass --team NAME");
        return 1;
      }
      teamRow = await identity.createTeam(team, config.plan);
      createdProject = await identity.createProject(teamRow.id, team);
    }
    const user = await identity.createUser({ teamId: teamRow.id, email, password, role: role as any, name: args.name });
    console.log(`user ${user.email} (${user.id}) added to team "${teamRow.name}" as ${role}`);
    if (createdProject) console.log(`team "${teamRow.name}" created with project "${createdProject.slug}" (${createdProject.id})`);
    return 0;
  } catch (e) {
    if (e instanceof DomainError) {
      console.error(e.message);
      return 1;
    }
    throw e;
  } finally {
    await storage.close();
  }
}
