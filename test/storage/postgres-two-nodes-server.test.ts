// Two real `inboxd serve` processes on one PostgreSQL (the scale-out of docs/scaling.md), driven
// through their listeners with real clients. What it proves: mail taken in by node A wakes a
// long-poll and an IMAP IDLE parked on node B (the bus crosses nodes through LISTEN/NOTIFY); a
// message deleted through B's POP3 is gone from A's REST; with both nodes dispatching, every
// webhook delivery arrives exactly once; an API key revoked on A is refused by B at once (its credential
// cache is cleared through the bus), and so are chaos rules changed on A, per inbox and at connect; an IMAP session on B whose inbox
// password is rotated through A's REST is ended (BYE) by B. Both nodes run with an hour-long credential cache and
// session re-check (INBOXD_CREDENTIAL_CACHE_MS, INBOXD_SESSION_RECHECK_MS), so within these tests' deadlines only the
// cross-node signal can explain a revocation taking effect on B; a node with another INBOXD_SECRET_KEY refuses to start;
// kill -9 of A while it takes mail in loses no message it acknowledged, and B finishes the webhook
// deliveries A had claimed. Wake-up times are printed, never asserted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, login, startInboxd, type Instance } from "../support/harness";
import { connected, newBox, RawImap, send } from "../support/imap";
import { nextMessage, sendMail, sendRaw, SmtpDialog } from "../support/mail";
import { Pop3Client } from "../support/pop3-client";
import { type PostgresServer, postgresBinDir, postgresMissing, postgresRequired, startPostgres } from "../support/postgres";
import { Receiver, registerWebhook } from "../support/webhook-receiver";

const SECRET_KEY = "cd".repeat(32);
/**
 * Neither node re-reads a credential on its own within an hour: the fallbacks a lost wake-up
 * relies on (the cache's expiry, the periodic re-check) cannot act within a test's deadline.
 */
const NO_FALLBACK = { INBOXD_CREDENTIAL_CACHE_MS: "3600000", INBOXD_SESSION_RECHECK_MS: "3600000" };
const available = !!postgresBinDir() || postgresRequired;
if (!available) test.skip(postgresMissing, () => {});

/** What a node's SMTP listener first sends a new connection: its greeting, or a connection fault's reply. */
async function firstLine(n: Instance): Promise<string> {
  const { dialog, greeting } = await SmtpDialog.open(n.ports.smtp!);
  dialog.close();
  return greeting;
}

describe.skipIf(!available)("two inboxd nodes on one PostgreSQL", () => {
  let pg: PostgresServer;
  let url: string;
  let a: Instance;
  let b: Instance;
  let rx: Receiver;

  beforeAll(async () => {
    pg = await startPostgres();
    url = await pg.newDatabase();
    rx = await Receiver.start();
    // One after the other: the first start bootstraps the database, the second finds it done.
    a = await startInboxd({ INBOXD_DATABASE_URL: url, INBOXD_SECRET_KEY: SECRET_KEY, INBOXD_WEBHOOK_TIMEOUT_MS: "2000", ...NO_FALLBACK });
    b = await startInboxd({ INBOXD_DATABASE_URL: url, INBOXD_SECRET_KEY: SECRET_KEY, INBOXD_WEBHOOK_TIMEOUT_MS: "2000", ...NO_FALLBACK });
  });
  afterAll(async () => {
    for (const n of [a, b]) {
      await n?.stop().catch(() => {});
      n?.cleanup();
    }
    rx?.server.stop(true);
    await pg?.stop();
  });

  test("mail sent to A wakes a long-poll parked on B", async () => {
    const box = await newBox(a);
    const t0 = performance.now();
    const waiting = nextMessage(b, box.id);
    await Bun.sleep(200); // let B park the request (if not, it finds the message at once: same answer)
    const sent = performance.now();
    const id = await sendMail(a, { from: "sender@example.com", to: box.address, subject: "cross-node long-poll", text: "x" });
    const got = await waiting;
    console.log(
      `long-poll on B answered ${(performance.now() - sent).toFixed(1)} ms after A's SMTP send began (parked ${(sent - t0).toFixed(0)} ms)`,
    );
    expect(got.id).toBe(id);
    expect(got.subject).toBe("cross-node long-poll");
  });

  test("mail sent to A reaches an IMAP IDLE on B", async () => {
    const box = await newBox(a);
    const c = await connected(b, box);
    try {
      await c.mailboxOpen("INBOX");
      const exists = new Promise<number>((resolve) => c.on("exists", (e: any) => resolve(e.count)));
      const idle = c.idle();
      await Bun.sleep(100);
      const sent = performance.now();
      await send(a, box.address, { subject: "while idle on B", text: "x" });
      const count = await exists;
      console.log(`IMAP IDLE on B saw EXISTS ${(performance.now() - sent).toFixed(1)} ms after A's SMTP send began`);
      expect(count).toBe(1);
      await c.logout();
      await idle.catch(() => {});
    } finally {
      c.close();
    }
  });

  test("a message deleted through B's POP3 is gone from A's REST", async () => {
    const box = await newBox(a);
    const keep = await sendMail(a, { from: "sender@example.com", to: box.address, subject: "keep", text: "k" });
    const gone = await sendMail(b, { from: "sender@example.com", to: box.address, subject: "delete me", text: "d" });
    const pop = await Pop3Client.connect(b.ports.pop3!);
    try {
      expect(await pop.line()).toStartWith("+OK");
      expect(await pop.login(box.address, box.password)).toStartWith("+OK");
      expect(await pop.cmd("STAT")).toMatch(/^\+OK 2 /);
      // Find the message numbered for "delete me" by its headers.
      let target = 0;
      for (const n of [1, 2]) {
        const top = await pop.multi(`TOP ${n} 0`);
        if (top.body.toString().includes("Subject: delete me")) target = n;
      }
      expect(target).toBeGreaterThan(0);
      expect(await pop.cmd(`DELE ${target}`)).toStartWith("+OK");
      expect(await pop.cmd("QUIT")).toStartWith("+OK");
    } finally {
      pop.close();
    }
    const onA = await json(a.api(`/v1/inboxes/${box.id}/messages`));
    expect(onA.body.data.map((m: any) => m.id)).toEqual([keep]);
    expect((await a.api(`/v1/messages/${gone}`)).status).toBe(404);
  });

  test("with both nodes dispatching, each webhook delivery arrives exactly once", async () => {
    const box = await newBox(a);
    await registerWebhook(a, { url: rx.url("/once"), inbox_id: box.id });
    const n = 16;
    const ids = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        sendMail(i % 2 ? b : a, { from: "sender@example.com", to: box.address, subject: `hook ${i}`, text: "w" }),
      ),
    );
    await rx.waitFor((g) => g.filter((x) => x.path === "/once").length >= n || null, 30_000);
    // Every delivery recorded as done, so nothing is still on its way from either node.
    const hooks = await json(a.api("/v1/webhooks"));
    const wh = hooks.body.data.find((w: any) => w.url === rx.url("/once"));
    for (;;) {
      const d = await json(a.api(`/v1/webhooks/${wh.id}/deliveries?limit=100`));
      if (d.body.data.length >= n && d.body.data.every((x: any) => x.status !== "pending")) break;
      await Bun.sleep(50);
    }
    const got = rx.got.filter((x) => x.path === "/once");
    expect(got.length).toBe(n);
    expect(new Set(got.map((x) => x.headers["webhook-id"])).size).toBe(n);
    expect(ids.length).toBe(n);
  });

  test("an API key revoked on A is refused by B at once, though B had it in its hour-long credential cache", async () => {
    const key = (await json(a.api("/v1/api-keys", { method: "POST", json: { name: "cross-node", scopes: ["inboxes:read"] } }))).body.data;
    expect((await b.api("/v1/inboxes", { token: key.secret })).status).toBe(200); // now cached on B
    const box = await newBox(a);
    const waiting = nextMessage(b, box.id);
    const revokedAt = performance.now();
    expect((await json(a.api(`/v1/api-keys/${key.id}/revoke`, { method: "POST" }))).status).toBe(200);
    // A's signals reach B in the order A sent them: once B has seen this later mail, it has
    // processed the revocation before it.
    await sendMail(a, { from: "sender@example.com", to: box.address, subject: "after the revocation", text: "x" });
    await waiting;
    const r = await b.api("/v1/inboxes", { token: key.secret });
    console.log(`B refused the revoked key ${(performance.now() - revokedAt).toFixed(0)} ms after the revocation began`);
    expect(r.status).toBe(401);
  });

  test("a project setting switched off on A holds at B's next request, though B had the project cached", async () => {
    const owner = await login(a);
    const project = (await json(a.api("/v1/projects", { token: owner }))).body.data[0].id;
    const openOn = (n: Instance) => n.api("/v1/agent-sessions", { method: "POST", json: {} }).then((r) => r.status);
    expect(await openOn(b)).toBe(201); // B has the project cached now (5 s)
    const box = await newBox(a);
    const waiting = nextMessage(b, box.id);
    const setting = (on: boolean) =>
      a.api(`/v1/projects/${project}`, { method: "PATCH", token: owner, json: { settings: { "api_keys.agent_access_enabled": on } } });
    try {
      expect((await setting(false)).status).toBe(200);
      // A's signals reach B in order: once B has seen this later mail, it has had the change before it.
      await sendMail(a, { from: "sender@example.com", to: box.address, subject: "after the setting", text: "x" });
      await waiting;
      expect(await openOn(b)).toBe(403);
    } finally {
      await setting(true);
    }
  });

  test("chaos rules changed on A apply at B's next RCPT, though B keeps them in memory", async () => {
    const box = await newBox(a);
    const rules = (list: unknown[]) => json(a.api(`/v1/inboxes/${box.id}/chaos`, { method: "PUT", json: { rules: list } }));
    const mail = `From: app@example.com\r\nSubject: chaos across nodes\r\n\r\nx\r\n`;
    const refusal = (n: Instance) =>
      sendRaw(n, box.address, mail).then(
        () => 250,
        (e) => e.responseCode as number,
      );
    expect((await rules([{ stage: "rcpt", code: 550 }])).status).toBe(200);
    expect(await refusal(b)).toBe(550); // now cached on B
    const waiting = nextMessage(b, box.id);
    expect((await rules([])).status).toBe(200);
    // A's signals reach B in order: once B has seen this later mail, it has dropped the old rules.
    const other = await newBox(a);
    const seen = nextMessage(b, other.id);
    await sendMail(a, { from: "sender@example.com", to: other.address, subject: "after the change", text: "x" });
    await seen;
    expect(await refusal(b)).toBe(250);
    expect((await waiting).subject).toBe("chaos across nodes");
  });

  test("connection faults set on A apply to B's next connection, before B's own re-read could", async () => {
    // B answers connections from its copy of the rules and re-reads them on its own only when the
    // copy is 5 s old (mail/smtp-chaos.ts STALE_MS). A connection now leaves B with a fresh copy, so
    // within the next 4 s only the signal from A can explain B taking up a change.
    await firstLine(b);
    await Bun.sleep(200);
    const deadline = Date.now() + 4_000;
    const untilGreeting = async (prefix: string) => {
      let line = await firstLine(b);
      while (!line.startsWith(prefix) && Date.now() < deadline) {
        await Bun.sleep(20);
        line = await firstLine(b);
      }
      return line;
    };
    const set = await json(a.api("/v1/smtp/chaos", { method: "PUT", json: { rules: [{ stage: "connect", code: 421 }] } }));
    expect(set.status).toBe(200);
    expect(await untilGreeting("421")).toMatch(/^421 4\.3\.2 /);
    expect((await a.api("/v1/smtp/chaos", { method: "DELETE" })).status).toBe(204);
    expect(await untilGreeting("220")).toMatch(/^220 .*ESMTP/);
  });

  test("an IMAP session on B is ended (BYE) when its inbox's password is rotated through A's REST", async () => {
    const box = await newBox(a);
    const imap = await RawImap.open(b.ports.imap!);
    try {
      await imap.login(box);
      expect(await imap.cmd("S1", "SELECT INBOX")).toContain("S1 OK");
      const rotatedAt = performance.now();
      const rotated = await json(a.api(`/v1/inboxes/${box.id}/credentials/rotate`, { method: "POST" }));
      expect(rotated.status).toBe(200);
      expect(rotated.body.data.password).not.toBe(box.password);
      // The client sends nothing: no command of its own makes B look. B's own re-check would come
      // after an hour (NO_FALLBACK); 20 s is a deadline only the bus can meet.
      const bye = await imap.until("* BYE", 20_000);
      console.log(`B said BYE ${(performance.now() - rotatedAt).toFixed(0)} ms after the rotation through A began`);
      expect(bye).toContain("credentials were revoked");
      expect(await imap.waitClosed(20_000)).toBe(true);
      // A session on B logged in with the new password works (the rotation ended only the old one).
      const fresh = await RawImap.open(b.ports.imap!);
      try {
        await fresh.login({ ...box, password: rotated.body.data.password });
        expect(await fresh.cmd("N1", "NOOP")).toContain("N1 OK");
      } finally {
        fresh.close();
      }
    } finally {
      imap.close();
    }
  });

  test("a node with another INBOXD_SECRET_KEY refuses to start, naming the setting", async () => {
    const err = await startInboxd({ INBOXD_DATABASE_URL: url, INBOXD_SECRET_KEY: "ef".repeat(32) }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect(String(err)).toContain("INBOXD_SECRET_KEY does not match");
  });

  test("kill -9 of A during ingest: every acknowledged message is on B, and B delivers A's claimed webhooks", async () => {
    const box = await newBox(a);
    await registerWebhook(b, { url: rx.url("/crash"), inbox_id: box.id });
    // The first tries get no answer for a minute (the receiver records a request once it answers),
    // so the node that claimed them holds claims: those of A when it dies lapse and B retries them.
    rx.on("/crash", (_r, nth) => (nth <= 4 ? { status: 200, delayMs: 60_000 } : { status: 200 }));
    const acked: string[] = [];
    let stop = false;
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        try {
          acked.push(await sendMail(a, { from: "sender@example.com", to: box.address, subject: `crash ${w}.${i}`, text: "c" }));
        } catch {
          return; // the connection died with A: not acknowledged
        }
      }
    });
    while (acked.length < 20) await Bun.sleep(10);
    await a.kill();
    stop = true;
    await Promise.all(writers);
    console.log(`acknowledged by A before kill -9: ${acked.length}`);
    const onB = await json(b.api(`/v1/inboxes/${box.id}/messages?limit=100`));
    const stored = new Set(onB.body.data.map((m: any) => m.id));
    for (const id of acked) expect(stored.has(id)).toBe(true);
    // Each stored message's delivery arrives, those A claimed after their claims lapse on B.
    const t0 = performance.now();
    await rx.waitFor((g) => {
      const ok = new Set(g.filter((x) => x.path === "/crash").map((x) => x.headers["webhook-id"]));
      return ok.size >= stored.size || null;
    }, 80_000);
    console.log(`B finished ${stored.size} deliveries, the last ${(performance.now() - t0).toFixed(0)} ms after the kill`);
    expect(stored.size).toBeGreaterThanOrEqual(acked.length);
  }, 120_000);
});
