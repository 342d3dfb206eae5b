// Cross-node wake-ups on PostgreSQL: NOTIFY/LISTEN on one channel (docs/scaling.md). A batch of
// payloads goes out in one statement, so a node's signals arrive in the order it sent them and
// a burst of ingest costs one round trip per batch, not per message. PostgreSQL drops a NOTIFY
// repeated within one transaction: fine, a signal is a wake-up, not a fact.
import type { NodeSignals } from "..";
import type { PgConnection } from "./connection";

const CHANNEL = "inboxd";

export function postgresSignals(c: PgConnection): NodeSignals {
  return {
    send: async (payloads) => {
      if (payloads.length === 0) return;
      await c.run(`SELECT pg_notify('${CHANNEL}', p) FROM unnest($1::text[]) WITH ORDINALITY AS t(p, i) ORDER BY i`, payloads);
    },
    listen: (onPayload, onListen) => c.listen(CHANNEL, onPayload, onListen),
  };
}

/** The verifier row (0031): the first node's candidate wins; everyone reads the stored one. */
export async function claimPgSecretVerifier(c: PgConnection, candidate: string): Promise<string> {
  await c.run(
    "INSERT INTO instance_meta (name, value, created_at) VALUES ('secret_verifier', $1, $2) ON CONFLICT (name) DO NOTHING",
    candidate,
    new Date().toISOString(),
  );
  const r = await c.row<{ value: string }>("SELECT value FROM instance_meta WHERE name = 'secret_verifier'");
  return r!.value;
}
