// Every node of one database must hold the same INBOXD_SECRET_KEY (sealed webhook secrets, scenario
// secrets, IMAP passwords). The database keeps a verifier sealed by the first node that opened it
// (migration 0031); a node whose key cannot open it is refused at start-up with one clear line,
// rather than failing later on every sealed value it reads.
import type { Sealer } from "../lib/crypto";
import type { Storage } from "../storage";

const CANARY = "inboxd instance secret verifier v1";

/** null when this node's key opens the database's verifier (writing it first if there is none); else why not. */
export async function secretKeyMismatch(storage: Storage, sealer: Sealer): Promise<string | null> {
  const stored = await storage.claimSecretVerifier(sealer.seal(CANARY));
  try {
    if (sealer.open(stored) === CANARY) return null;
  } catch {
    // a wrong key fails the GCM tag check
  }
  return "INBOXD_SECRET_KEY does not match the key this database was sealed with: every node of one database needs the same INBOXD_SECRET_KEY (on SQLite: the data directory's secret.key or the INBOXD_SECRET_KEY it was first started with)";
}
