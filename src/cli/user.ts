// `inboxd user list` and `inboxd user passwd --email E [--password P]`. Like `user add`, they work on
// the data directory while the server runs (SQLite WAL allows a second writer process).
import type { Config } from "../runtime/config";
import type { AppContext } from "../runtime/context";
import { existingDataDir, openExisting } from "./data-dir";
import { IdentityService } from "../tenancy/identity";
import { randomToken } from "../lib/crypto";

async function withIdentity<T>(config: Config, fn: (identity: IdentityService) => Promise<T>): Promise<T> {
  const storage = await openExisting(config, existingDataDir(config));
  try {
    return await fn(new IdentityService({ config, storage } as unknown as AppContext));
  } finally {
    await storage.close();
  }
}

/** One line per user: email, role, team, id, created (tab-separated with --json absent). */
export async function userList(config: Config, json: boolean): Promise<number> {
  const users = await withIdentity(config, (identity) => identity.listUsers());
  if (json) {
    const rows = users.map((u) => ({ id: u.id, email: u.email, name: u.name, role: u.role, team: u.teamName, created_at: u.createdAt }));
    console.log(JSON.stringify(rows, null, 2));
    return 0;
  }
  const table = [["EMAIL", "ROLE", "TEAM", "ID", "CREATED"], ...users.map((u) => [u.email, u.role, u.teamName, u.id, u.createdAt])];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  for (const r of table) console.log(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  "));
  return 0;
}

/** Sets a password; without --password one is generated and printed once. Logs out the user's devices. */
export async function userPasswd(config: Config, email: string, password: string | undefined): Promise<number> {
  const chosen = password ?? randomToken(12);
  const { user, loggedOut } = await withIdentity(config, (identity) => identity.setPassword(email, chosen));
  console.log(`password of ${user.email} changed; ${loggedOut} device session${loggedOut === 1 ? "" : "s"} logged out`);
  if (password === undefined) console.log(`new password (shown once): ${chosen}`);
  return 0;
}
