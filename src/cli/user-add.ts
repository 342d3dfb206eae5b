// `inboxd user add --email E --password P --role owner|admin|member [--team NAME]`
// Works on the data directory while the server runs (SQLite WAL allows a second writer process).
import type { Config } from "../runtime/config";
import { existingDataDir, openExisting } from "./data-dir";
import { CliFailure } from "./failure";
import { UsageError } from "./args";
import { makeDataDirPrivate } from "../storage/private-files";
import { IdentityService } from "../tenancy/identity";
import { BOOTSTRAP_TEAM } from "../bootstrap";
import type { AppContext } from "../runtime/context";
import { DomainError, quoted } from "../lib/errors";

/** One @ with something on each side, no white space. */
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export async function userAdd(config: Config, args: Record<string, string>): Promise<number> {
  for (const flag of ["email", "password", "role"]) if (!args[flag]) throw new UsageError(`--${flag} is required`);
  const { email, password, role } = args as { email: string; password: string; role: string };
  const team = args.team;
  if (!EMAIL.test(email)) throw new UsageError(`--email must be an email address (name@domain), got ${quoted(email)}`);
  if (!["owner", "admin", "member"].includes(role)) throw new UsageError(`--role must be owner, admin or member, got ${quoted(role)}`);
  if (password.length < 8) throw new UsageError("--password must be at least 8 characters");
  const dataDir = existingDataDir(config);
  makeDataDirPrivate(dataDir);
  const storage = await openExisting(config, dataDir);
  try {
    const identity = new IdentityService({ config, storage } as unknown as AppContext);
    let teamRow = await identity.teamByName(team ?? BOOTSTRAP_TEAM);
    let createdProject: { id: string; slug: string } | null = null;
    if (!teamRow) {
      if (!team) throw new CliFailure("no bootstrap team yet: start `inboxd serve` once, or pass --team NAME");
      teamRow = await identity.createTeam(team, config.plan);
      createdProject = await identity.createProject(teamRow.id, team);
    }
    const user = await identity.createUser({ teamId: teamRow.id, email, password, role: role as any, name: args.name });
    console.log(`user ${user.email} (${user.id}) added to team "${teamRow.name}" as ${role}`);
    if (createdProject) console.log(`team "${teamRow.name}" created with project "${createdProject.slug}" (${createdProject.id})`);
    return 0;
  } catch (e) {
    if (e instanceof DomainError) throw new CliFailure(e.message);
    throw e;
  } finally {
    await storage.close();
  }
}
