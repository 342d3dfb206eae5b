// Per-client fairness (docs/security.md, "Per-client fairness"), with real clients from several
// loopback addresses (Linux routes all of 127/8 to lo, so `localAddress: "127.0.0.2"` is a second
// client): one address holding 1,000 idle sockets on IMAP, POP3 or SMTP does not lock out a second
// address; connections not logged in are closed after the pre-auth timeout; wrong passwords back off
// per account and address on HTTP, IMAP and POP3 without locking other accounts or addresses.
// The flood tests hold 1,000 sockets at a time in this process (ulimit -n must exceed ~1,100; CI
// runners default to 65,536, this machine 20,000) and as many on the server's side until refused.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import tls from "node:tls";
import { addUser, ADMIN_EMAIL, ADMIN_PASSWORD, json, login, startInboxd, type Instance } from "../support/harness";
import { type Box, newBox, RawImap } from "../support/imap";
import { createInbox, sendMail, SmtpDialog } from "../support/mail";
import { Pop3Client } from "../support/pop3-client";

const FLOOD = 1000;
/** The default per-address caps (INBOXD_{IMAP,POP3}_PREAUTH_PER_ADDRESS, INBOXD_SMTP_MAX_PER_ADDRESS). */
const PER_ADDRESS = 100;
/** Log-in failures of one account from one address before back-off, in these tests. */
const ALLOWED = 3;

let inst: Instance;
let boxA: Box;
let boxB: Box;

beforeAll(async () => {
  // Caps and timeouts at their defaults; log-in back-off small, with a first lock long enough
  // to outlast each test (so no assertion depends on how fast the machine is).
  inst = await startInboxd({
    INBOXD_LOGIN_FAILURES_PER_ACCOUNT_ADDRESS: String(ALLOWED),
    INBOXD_LOGIN_BACKOFF_MS: "120000",
  });
  boxA = await newBox(inst);
  // Tenant B: another team, its own project and inbox.
  await addUser(inst, "owner@b.test", "owner-b-password", "owner", "Team B");
  await addUser(inst, "member@a.test", "member-a-password", "member");
  const tokenB = await login(inst, "owner@b.test", "owner-b-password");
  const projectB = (await json(inst.api("/v1/projects", { token: tokenB }))).body.data[0].id;
  const ib = await createInbox(inst, {}, tokenB, projectB);
  const cr = await json(inst.api(`/v1/inboxes/${ib.id}/credentials`, { token: tokenB, project: projectB }));
  boxB = { id: ib.id, address: ib.address, password: cr.body.data.password };
}, 60_000);

afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

/** Opens `n` connections from `localAddress` and reads each one's first line; the sockets stay open. */
async function flood(port: number, n: number, secure: boolean, localAddress = "127.0.0.1") {
  const sockets: net.Socket[] = [];
  const closed: Promise<unknown>[] = [];
  const lines: string[] = [];
  const one = () =>
    new Promise<string>((resolve) => {
      const s = secure
        ? tls.connect({ host: "127.0.0.1", port, localAddress, rejectUnauthorized: false } as tls.ConnectionOptions)
        : net.connect({ host: "127.0.0.1", port, localAddress });
      sockets.push(s);
      closed.push(new Promise((r) => s.once("close", r)));
      let buf = "";
      s.on("data", (d: Buffer) => {
        buf += d.toString("latin1");
        const i = buf.indexOf("\r\n");
        if (i >= 0) resolve(buf.slice(0, i));
      });
      s.on("error", () => resolve(`(error) ${buf}`));
      s.on("close", () => resolve(`(closed) ${buf}`));
    });
  // In batches, so the listen backlog and 2 cores' TLS handshakes are not swamped at once.
  for (let i = 0; i < n; i += 100) lines.push(...(await Promise.all(Array.from({ length: Math.min(100, n - i) }, one))));
  /** Resolves once the server has closed every connection it answered with `prefix`. */
  const refusedClosed = (prefix: string) => Promise.all(closed.filter((_, i) => lines[i]!.startsWith(prefix)));
  return { lines, sockets, refusedClosed, close: () => sockets.forEach((s) => s.destroy()) };
}

const count = (lines: string[], prefix: string) => lines.filter((l) => l.startsWith(prefix)).length;

/** A raw HTTP/1.1 request from a chosen client address (fetch cannot pick one). */
async function httpFrom(localAddress: string, method: string, path: string, body?: unknown) {
  const payload = body === undefined ? "" : JSON.stringify(body);
  const s = net.connect({ host: "127.0.0.1", port: inst.ports.http!, localAddress });
  s.write(
    `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`,
  );
  let raw = "";
  s.on("data", (d: Buffer) => (raw += d.toString("utf8")));
  await new Promise((r) => s.on("close", r));
  const [head, ...rest] = raw.split("\r\n\r\n");
  const headers = new Map(
    head!
      .split("\r\n")
      .slice(1)
      .map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()] as [string, string]),
  );
  const text = rest.join("\r\n\r\n");
  const json = text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1);
  return { status: Number(head!.split(" ")[1]), headers, body: json ? JSON.parse(json) : null };
}

const logIn = (from: string, email: string, password: string) =>
  httpFrom(from, "POST", "/v1/devices", { email, password, name: "fairness test" });

describe("1,000 idle sockets from one address", () => {
  test("IMAP: the address gets its share, the rest * BYE; a second address logs in and selects", async () => {
    const f = await flood(inst.ports.imap!, FLOOD, true);
    try {
      expect(count(f.lines, "* OK")).toBe(PER_ADDRESS);
      expect(count(f.lines, "* BYE [UNAVAILABLE] Too many connections not logged in from your address")).toBe(FLOOD - PER_ADDRESS);
      expect((await f.refusedClosed("* BYE")).length).toBe(FLOOD - PER_ADDRESS);
      const other = await RawImap.open(inst.ports.imap!, "127.0.0.2");
      await other.login(boxA);
      expect(await other.cmd("S1", "SELECT INBOX")).toContain("S1 OK");
      other.close();
      // Logged-in sessions leave the share: one held socket logs in, and the address may open one more.
      const held = f.sockets[f.lines.findIndex((l) => l.startsWith("* OK"))]!;
      const reply = new Promise<string>((resolve) => {
        let buf = "";
        held.on("data", (d: Buffer) => {
          buf += d.toString("latin1");
          if (/\r\nL1 |^L1 /.test(buf)) resolve(buf);
        });
      });
      held.write(`L1 LOGIN "${boxA.address}" "${boxA.password}"\r\n`);
      expect(await reply).toContain("L1 OK");
      const next = await flood(inst.ports.imap!, 2, true);
      expect(next.lines[0]).toStartWith("* OK");
      expect(next.lines[1]).toStartWith("* BYE [UNAVAILABLE]");
      next.close();
    } finally {
      f.close();
    }
  }, 120_000);

  test("POP3: the rest get -ERR [SYS/TEMP]; a second address logs in and reads its maildrop", async () => {
    const f = await flood(inst.ports.pop3!, FLOOD, true);
    try {
      expect(count(f.lines, "+OK")).toBe(PER_ADDRESS);
      expect(count(f.lines, "-ERR [SYS/TEMP] too many connections not logged in from your address")).toBe(FLOOD - PER_ADDRESS);
      expect((await f.refusedClosed("-ERR")).length).toBe(FLOOD - PER_ADDRESS);
      const other = await Pop3Client.connect(inst.ports.pop3!, { localAddress: "127.0.0.2" });
      expect(await other.line()).toStartWith("+OK");
      expect(await other.login(boxA.address, boxA.password)).toStartWith("+OK logged in");
      expect(await other.cmd("STAT")).toMatch(/^\+OK \d+ \d+$/);
      expect(await other.cmd("QUIT")).toStartWith("+OK");
      other.close();
    } finally {
      f.close();
    }
  }, 120_000);

  test("SMTP: the rest get 421 4.7.0; a second address sends a message that is stored", async () => {
    const f = await flood(inst.ports.smtp!, FLOOD, false);
    try {
      expect(count(f.lines, "220 ")).toBe(PER_ADDRESS);
      expect(count(f.lines, "421 4.7.0")).toBe(FLOOD - PER_ADDRESS);
      expect((await f.refusedClosed("421")).length).toBe(FLOOD - PER_ADDRESS);
      expect(f.lines.find((l) => l.startsWith("421"))).toContain("too many connections from your address");
      const id = await sendMail(
        inst,
        { from: "sender@example.com", to: boxA.address, subject: "through the flood", text: "hello" },
        { localAddress: "127.0.0.2" },
      );
      const m = await json(inst.api(`/v1/messages/${id}`));
      expect(m.status).toBe(200);
      expect(m.body.data.subject).toBe("through the flood");
    } finally {
      f.close();
    }
  }, 120_000);
});

describe("log-in back-off on POST /v1/devices", () => {
  test(`${ALLOWED} wrong passwords: then 429 rate_limited with Retry-After, even for the right password`, async () => {
    const X = "127.0.0.11";
    for (let i = 0; i < ALLOWED; i++) {
      const r = await logIn(X, ADMIN_EMAIL, `wrong-${i}`);
      expect(r.status).toBe(401);
      expect(r.body.code).toBe("invalid_credentials");
    }
    // Refused before the password is looked at: the right one is refused too, costing no argon2.
    const r = await logIn(X, ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(r.status).toBe(429);
    expect(r.body.code).toBe("rate_limited");
    expect(typeof r.body.request_id).toBe("string");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(r.body.details.retry_after).toBe(Number(r.headers.get("retry-after")));
    // The same account from another address, and another account from the same address, still log in.
    expect((await logIn("127.0.0.12", ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(201);
    expect((await logIn(X, "member@a.test", "member-a-password")).status).toBe(201);
  });

  test("a successful log-in resets the account+address count", async () => {
    const X = "127.0.0.13";
    for (let round = 0; round < 2; round++) {
      for (let i = 1; i < ALLOWED; i++) expect((await logIn(X, ADMIN_EMAIL, "wrong")).status).toBe(401);
      expect((await logIn(X, ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(201);
    }
  });
});

describe("IMAP and POP3 back-off is per mailbox and address", () => {
  test("IMAP: failures on A's mailbox from X refuse A from X only; B from X and A from Y log in", async () => {
    const [X, Y] = ["127.0.0.21", "127.0.0.22"];
    const c = await RawImap.open(inst.ports.imap!, X);
    await c.until("* OK");
    for (let i = 0; i < ALLOWED; i++) {
      expect(await c.cmd(`F${i}`, `LOGIN "${boxA.address}" "wrong-${i}"`)).toContain(`F${i} NO [AUTHENTICATIONFAILED]`);
    }
    expect(await c.cmd("R1", `LOGIN "${boxA.address}" "${boxA.password}"`)).toContain("R1 NO [UNAVAILABLE]");
    expect(await c.cmd("B1", `LOGIN "${boxB.address}" "${boxB.password}"`)).toContain("B1 OK");
    c.close();
    const y = await RawImap.open(inst.ports.imap!, Y);
    await y.login(boxA);
    y.close();
  });

  test("POP3: the same, with -ERR [AUTH] for wrong passwords and -ERR [SYS/TEMP] while backing off", async () => {
    const [X, Y] = ["127.0.0.31", "127.0.0.32"];
    const c = await Pop3Client.connect(inst.ports.pop3!, { localAddress: X });
    await c.line();
    for (let i = 0; i < ALLOWED; i++) expect(await c.login(boxA.address, `wrong-${i}`)).toStartWith("-ERR [AUTH]");
    expect(await c.login(boxA.address, boxA.password)).toStartWith("-ERR [SYS/TEMP]");
    expect(await c.login(boxB.address, boxB.password)).toStartWith("+OK logged in");
    c.close();
    const y = await Pop3Client.connect(inst.ports.pop3!, { localAddress: Y });
    await y.line();
    expect(await y.login(boxA.address, boxA.password)).toStartWith("+OK logged in");
    y.close();
  });
});

describe("short settings", () => {
  let small: Instance;
  let box: Box;
  beforeAll(async () => {
    small = await startInboxd({
      INBOXD_IMAP_PREAUTH_TIMEOUT: "2",
      INBOXD_POP3_PREAUTH_TIMEOUT: "2",
      // One address may fail on 3 accounts in all; each account gets more than that on its own.
      INBOXD_LOGIN_FAILURES_PER_ADDRESS: "3",
      INBOXD_LOGIN_BACKOFF_MS: "120000",
      INBOXD_SMTP_AUTH: "require",
    });
    box = await newBox(small);
  }, 60_000);
  afterAll(async () => {
    await small.stop();
    small.cleanup();
  });

  test("IMAP: a connection that does not log in is closed after the pre-auth timeout, NOOPs or not", async () => {
    const c = await RawImap.open(small.ports.imap!);
    await c.until("* OK");
    expect(await c.cmd("N1", "NOOP")).toContain("N1 OK");
    expect(await c.until("* BYE")).toContain("log-in took too long");
    expect(await c.waitClosed()).toBe(true);
  });

  test("POP3: likewise, with -ERR [SYS/TEMP]", async () => {
    const c = await Pop3Client.connect(small.ports.pop3!);
    await c.line();
    expect(await c.cmd("NOOP")).toStartWith("+OK");
    expect(await c.line()).toBe("-ERR [SYS/TEMP] log-in took too long");
    await c.closed;
    expect(c.isEnded()).toBe(true);
  });

  test("IMAP: a logged-in session is not held to the pre-auth timeout", async () => {
    const c = await RawImap.open(small.ports.imap!);
    await c.login(box);
    // Past the 2 s pre-auth timeout, and several sweeps of it.
    await Bun.sleep(2600);
    expect(await c.cmd("N1", "NOOP")).toContain("N1 OK");
    c.close();
  });

  test("per-address back-off: spraying accounts from X throttles X only", async () => {
    const [X, Y] = ["127.0.0.41", "127.0.0.42"];
    const c = await RawImap.open(small.ports.imap!, X);
    await c.until("* OK");
    for (let i = 0; i < 3; i++) {
      expect(await c.cmd(`F${i}`, `LOGIN "nobody${i}@example.com" "wrong"`)).toContain("NO [AUTHENTICATIONFAILED]");
    }
    expect(await c.cmd("R1", `LOGIN "${box.address}" "${box.password}"`)).toContain("R1 NO [UNAVAILABLE]");
    c.close();
    const y = await RawImap.open(small.ports.imap!, Y);
    await y.login(box);
    y.close();
  });

  test("SMTP AUTH (INBOXD_SMTP_AUTH=require) backs off the same way: 454 4.7.0 for X, 235 for Y", async () => {
    const [X, Y] = ["127.0.0.51", "127.0.0.52"];
    const plain = (user: string, pass: string) => Buffer.from(`\0${user}\0${pass}`).toString("base64");
    const { dialog: x } = await SmtpDialog.open(small.ports.smtp!, X);
    await x.cmd("EHLO x.test");
    for (let i = 0; i < 3; i++) expect(await x.cmd(`AUTH PLAIN ${plain(`nobody${i}@example.com`, "wrong")}`)).toStartWith("535 5.7.8");
    expect(await x.cmd(`AUTH PLAIN ${plain(box.address, box.password)}`)).toStartWith("454 4.7.0");
    x.close();
    const { dialog: y } = await SmtpDialog.open(small.ports.smtp!, Y);
    await y.cmd("EHLO y.test");
    expect(await y.cmd(`AUTH PLAIN ${plain(box.address, box.password)}`)).toStartWith("235");
    y.close();
  });
});
