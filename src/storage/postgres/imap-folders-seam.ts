// THE SEAM for the IMAP folder repositories on PostgreSQL. They are ported on a sibling branch
// (s27-pgmig, with the PostgreSQL halves of migrations 0026..0028); until that merge this is the
// one place that stands in for them: every method rejects with a plain error naming the gap, so a
// PostgreSQL storage opened by a test never pretends to have folders. At the merge, replace this
// file's body by the real `postgresImapFolderRepositories(c)` (same signature); nothing else in
// the engine changes (storage.ts calls only this function).
import type { ImapFolderRepositories, ImapFolderRepository } from "../imap-folders";
import type { PgClient } from "./connection";

export function postgresImapFolderRepositories(_c: PgClient): ImapFolderRepositories {
  const missing = new Proxy({} as ImapFolderRepository, {
    get: (_t, name) =>
      typeof name === "string" && name !== "then"
        ? () => Promise.reject(new Error(`imapFolders.${name} is not ported to PostgreSQL yet (docs/scaling.md)`))
        : undefined,
  });
  return { imapFolders: missing };
}
