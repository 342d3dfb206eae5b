// SQLite implementation of the mail repositories (src/storage/mail.ts).
import type { MailRepositories } from "../mail";
import type { SqliteConnection } from "./connection";

export function sqliteMailRepositories(_c: SqliteConnection): MailRepositories {
  return {};
}
