// Expiry and retention through the real scheduler: inboxes vanish at expires_at (messages and
// blobs too), messages at their own expires_at, and a server that was down catches up at start.
// Time is "advanced" by writing past timestamps into the database, as the clock would.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { withDatabase } from "../support/database-rows";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox, sendRaw } from "../support/mail";

// Capture off: after expiry, mail to the address must be refused, not caught by the catch-all inbox.
const ENV = { INBOXD_SWEEP_INTERVAL_MS: "100", INBOXD_CATCH_ALL: "off" };
let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd(ENV);
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const PAST = "2000-01-01T00:00:00.000Z";
const send = async (i: Instance, address: string, subject: string) => {
  const info = await sendRaw(i, address, `Subject: ${subject}\r\n\r\n${subject} ${Math.random()}\r\n`);
  return /stored ([0-9A-Z]{26})/.exec(info.response)![1]!;
};
async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not reached");
    await Bun.sleep(50);
  }
}
const blobCount = async (dir: string, key: string) =>
  ((await withDatabase(dir, (db) => db.get("SELECT COUNT(*) AS n FROM blobs_inline WHERE key = ?", [key]))) as { n: number }).n;

describe("expiry and retention", () => {
  test("message expires_at is received_at plus the plan's retention", async () => {
    const inbox = await createInbox(inst);
    const id = await send(inst, inbox.address, "retained");
    const m = (await json(inst.api(`/v1/messages/${id}`))).body.data;
    expect(Date.parse(m.expires_at) - Date.parse(m.received_at)).toBe(3 * 86_400_000);
    expect(inbox.retention_days).toBe(3);
  });

  test("a disposable inbox disappears at expires_at with its messages and blobs", async () => {
    const inbox = await createInbox(inst);
    const id = await send(inst, inbox.address, "doomed");
    const key = (
      (await withDatabase(inst.dataDir, (db) => db.get("SELECT blob_key FROM messages WHERE id = ?", [id]))) as { blob_key: string }
    ).blob_key;
    expect(await blobCount(inst.dataDir, key)).toBe(1);
    const patched = await json(inst.api(`/v1/inboxes/${inbox.id}`, { method: "PATCH", json: { ttl_seconds: 1 } }));
    expect(patched.status).toBe(200);
    await eventually(async () => (await inst.api(`/v1/inboxes/${inbox.id}`)).status === 404);
    expect((await json(inst.api(`/v1/messages/${id}`))).status).toBe(404);
    // Blobs no longer referenced are released just after the deleting transaction (mail/removal.ts).
    await eventually(async () => (await blobCount(inst.dataDir, key)) === 0);
    const err = await sendRaw(inst, inbox.address, "Subject: too late\r\n\r\nx\r\n").catch((e) => e);
    expect(err.responseCode).toBe(550);
  });

  test("messages past their retention are removed; the inbox stays and its counts follow", async () => {
    const inbox = await createInbox(inst);
    const old = await send(inst, inbox.address, "old");
    const fresh = await send(inst, inbox.address, "fresh");
    await withDatabase(inst.dataDir, (db) => db.run("UPDATE messages SET expires_at = ? WHERE id = ?", [PAST, old]));
    await eventually(async () => (await inst.api(`/v1/messages/${old}`)).status === 404);
    const shown = (await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data;
    expect(shown).toMatchObject({ message_count: 1, unread_count: 1 });
    expect((await json(inst.api(`/v1/messages/${fresh}`))).status).toBe(200);
  });

  test("a blob shared by two messages survives until the last one goes", async () => {
    const a = await createInbox(inst);
    const b = await createInbox(inst);
    const raw = `Subject: shared\r\n\r\nsame bytes ${Math.random()}\r\n`;
    const info = await sendRaw(inst, [a.address, b.address], raw);
    const [ida, idb] = /stored (\S+)/.exec(info.response)![1]!.split(",");
    const keyOf = async (id: string) =>
      ((await withDatabase(inst.dataDir, (db) => db.get("SELECT blob_key FROM messages WHERE id = ?", [id]))) as { blob_key: string })
        .blob_key;
    const key = await keyOf(ida!);
    expect(await keyOf(idb!)).toBe(key);
    expect(await blobCount(inst.dataDir, key)).toBe(1);
    await withDatabase(inst.dataDir, (db) => db.run("UPDATE messages SET expires_at = ? WHERE id = ?", [PAST, ida!]));
    await eventually(async () => (await inst.api(`/v1/messages/${ida}`)).status === 404);
    const back = await inst.api(`/v1/messages/${idb}/raw`);
    expect(await back.text()).toBe(raw);
    expect(await blobCount(inst.dataDir, key)).toBe(1);
    // The last one goes: so does the blob.
    await withDatabase(inst.dataDir, (db) => db.run("UPDATE messages SET expires_at = ? WHERE id = ?", [PAST, idb!]));
    await eventually(async () => (await blobCount(inst.dataDir, key)) === 0);
  });

  test("inbox.expiring is claimed once ahead of expiry (expiring_alerted_at set)", async () => {
    // An inbox created a day ago that expires in ten minutes is inside the one-hour window.
    const inbox = await createInbox(inst, { ttl_seconds: 86_400 });
    await withDatabase(inst.dataDir, (db) =>
      db.run("UPDATE inboxes SET created_at = ?, expires_at = ? WHERE id = ?", [
        new Date(Date.now() - 86_400_000).toISOString(),
        new Date(Date.now() + 600_000).toISOString(),
        inbox.id,
      ]),
    );
    const alertedAt = async (id: string) =>
      (
        (await withDatabase(inst.dataDir, (db) => db.get("SELECT expiring_alerted_at AS t FROM inboxes WHERE id = ?", [id]))) as {
          t: string | null;
        }
      ).t;
    await eventually(async () => (await alertedAt(inbox.id)) !== null);
    const far = await createInbox(inst, { ttl_seconds: 86_400 });
    await Bun.sleep(300);
    expect(await alertedAt(far.id)).toBeNull();
  });

  test("after downtime, what expired meanwhile is removed at start-up", async () => {
    const other = await startInboxd(ENV);
    try {
      const inbox = await createInbox(other);
      const keep = await createInbox(other);
      const msgInKeep = await send(other, keep.address, "expires while down");
      const stays = await send(other, keep.address, "stays");
      await other.stop();
      await withDatabase(other.dataDir, async (db) => {
        await db.run("UPDATE inboxes SET expires_at = ? WHERE id = ?", [PAST, inbox.id]);
        await db.run("UPDATE messages SET expires_at = ? WHERE id = ?", [PAST, msgInKeep]);
      });
      const again = await other.restart();
      try {
        await eventually(async () => (await again.api(`/v1/inboxes/${inbox.id}`)).status === 404);
        await eventually(async () => (await again.api(`/v1/messages/${msgInKeep}`)).status === 404);
        expect((await json(again.api(`/v1/messages/${stays}`))).status).toBe(200);
        expect((await json(again.api(`/v1/inboxes/${keep.id}`))).body.data.message_count).toBe(1);
      } finally {
        await again.stop();
      }
    } finally {
      other.cleanup();
    }
  }, 30_000);
});
