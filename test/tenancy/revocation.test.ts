// Revocation reaches sessions that are already open (issue 18, item 5): an SSE stream, an MCP
// session, a long-poll, an IMAP or POP3 log-in ends when its credential is revoked, rotated or
// logged out, and nothing that arrives afterwards is delivered on it. Real clients throughout:
// fetch streaming, the MCP SDK's Streamable HTTP client, imapflow, a raw POP3 client.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { knownDatabaseEnv } from "../support/test-database";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ADMIN_EMAIL, ADMIN_PASSWORD, json, login, ROOT, startInboxd, type Instance } from "../support/harness";
import { createInbox, sendMail } from "../support/mail";
import { imapflow, newBox, RawImap } from "../support/imap";
import { Pop3Client } from "../support/pop3-client";
import { inboxdCommand } from "../support/command";

let inst: Instance;
let project: string;

beforeAll(async () => {
  // A short re-check period for the one cross-process case (`inboxd user passwd` on the data directory).
  inst = await startInboxd({ INBOXD_SSE_HEARTBEAT_MS: "200", INBOXD_SESSION_RECHECK_MS: "300" });
  project = (await json(inst.api("/v1/projects"))).body.data[0].id;
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

/** Bounded wait for a condition (never a timing assertion: the bound only stops a hung test). */
async function until(cond: () => boolean, ms = 5_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!cond() && Date.now() < deadline) await Bun.sleep(20);
  return cond();
}

/** An SSE client over fetch: the text received so far, and whether the server ended the stream. */
class Sse {
  text = "";
  ended = false;
  status = 0;
  private ac = new AbortController();

  /** `query`: the credential as EventSource sends it (?access_token=&project=), not as a header. */
  static async open(token: string, projectId?: string, query = false): Promise<Sse> {
    const s = new Sse();
    const res = query
      ? await inst.api(`/v1/events?access_token=${encodeURIComponent(token)}&project=${projectId}`, { token: null, signal: s.ac.signal })
      : await inst.api("/v1/events", { token, project: projectId, signal: s.ac.signal });
    s.status = res.status;
    if (res.status !== 200) {
      s.text = await res.text();
      s.ended = true;
      return s;
    }
    void (async () => {
      const dec = new TextDecoder();
      try {
        for await (const chunk of res.body!) s.text += dec.decode(chunk, { stream: true });
      } catch {}
      s.ended = true;
    })();
    await until(() => s.text.includes(": connected"));
    return s;
  }

  close(): void {
    this.ac.abort();
  }
}

async function newKey(scopes?: string[]): Promise<{ id: string; secret: string }> {
  const r = await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "revocable", ...(scopes ? { scopes } : {}) } }));
  expect(r.status).toBe(201);
  return { id: r.body.data.id, secret: r.body.data.secret };
}

async function send(to: string, subject: string): Promise<string> {
  return sendMail(inst, { from: "app@example.com", to, subject, text: `code 4821 for ${subject}` });
}

/** Sends a message and waits (bootstrap key) until it is stored, so a stream that were open would have it. */
async function sendAndLand(inboxId: string, to: string, subject: string): Promise<string> {
  const id = await send(to, subject);
  const r = await json(inst.api(`/v1/inboxes/${inboxId}/messages?q=${encodeURIComponent(`subject:"${subject}"`)}&wait=10&min=1`));
  expect(r.body.data.map((m: any) => m.id)).toContain(id);
  return id;
}

describe("SSE streams end when their credential is revoked", () => {
  test("API key revoked: the open stream ends, and a message sent afterwards is not delivered on it", async () => {
    const key = await newKey();
    const inbox = await createInbox(inst);
    const sse = await Sse.open(key.secret);
    const before = await send(inbox.address, "before revoke");
    expect(await until(() => sse.text.includes(before))).toBe(true);

    const r = await json(inst.api(`/v1/api-keys/${key.id}/revoke`, { method: "POST" }));
    expect(r.status).toBe(200);
    expect(await until(() => sse.ended)).toBe(true);

    const after = await sendAndLand(inbox.id, inbox.address, "after revoke");
    expect(sse.text).not.toContain(after);
    // Reconnecting with the revoked key is refused in the contract's envelope.
    const again = await Sse.open(key.secret);
    expect(again.status).toBe(401);
    expect(JSON.parse(again.text).code).toBe("unauthorized");
  });

  test("API key rotated: the stream on the old secret ends; one opened on the new secret keeps delivering", async () => {
    const key = await newKey();
    const inbox = await createInbox(inst);
    const old = await Sse.open(key.secret);
    const rot = await json(inst.api(`/v1/api-keys/${key.id}/rotate`, { method: "POST" }));
    expect(rot.status).toBe(200);
    expect(await until(() => old.ended)).toBe(true);

    const fresh = await Sse.open(rot.body.data.secret);
    expect(fresh.status).toBe(200);
    const after = await send(inbox.address, "after rotate");
    expect(await until(() => fresh.text.includes(after))).toBe(true);
    expect(fresh.ended).toBe(false);
    expect(old.text).not.toContain(after);
    fresh.close();
  });

  test("device logged out (from another device): its stream ends", async () => {
    const device = await login(inst);
    const other = await login(inst);
    const inbox = await createInbox(inst);
    const sse = await Sse.open(device, project);
    expect(sse.status).toBe(200);
    const list = await json(inst.api("/v1/devices?limit=100", { token: device }));
    const mine = list.body.data.find((d: any) => d.current);
    expect(typeof mine.expires_at).toBe("string");

    const out = await inst.api(`/v1/devices/${mine.id}`, { method: "DELETE", token: other });
    expect(out.status).toBe(204);
    expect(await until(() => sse.ended)).toBe(true);
    const after = await sendAndLand(inbox.id, inbox.address, "after logout");
    expect(sse.text).not.toContain(after);
    expect((await inst.api("/v1/me", { token: device })).status).toBe(401);
    expect((await inst.api("/v1/me", { token: other })).status).toBe(200);
  });

  test("EventSource form (?access_token=): another key's revocation leaves the stream alone; its own log-out ends it", async () => {
    const device = await login(inst);
    const inbox = await createInbox(inst);
    const sse = await Sse.open(device, project, true);
    expect(sse.status).toBe(200);
    const unrelated = await newKey();
    await json(inst.api(`/v1/api-keys/${unrelated.id}/revoke`, { method: "POST" }));
    const still = await send(inbox.address, "unrelated revoke");
    expect(await until(() => sse.text.includes(still))).toBe(true);
    expect(sse.ended).toBe(false);

    const mine = (await json(inst.api("/v1/devices?limit=100", { token: device }))).body.data.find((d: any) => d.current);
    expect((await inst.api(`/v1/devices/${mine.id}`, { method: "DELETE", token: device })).status).toBe(204);
    expect(await until(() => sse.ended)).toBe(true);
  });

  test("user's sessions ended from another process (inboxd user passwd): the stream ends at the next re-check", async () => {
    const device = await login(inst);
    const inbox = await createInbox(inst);
    const sse = await Sse.open(device, project);
    expect(sse.status).toBe(200);
    const p = Bun.spawn([...inboxdCommand(), "user", "passwd", "--email", ADMIN_EMAIL, "--password", ADMIN_PASSWORD], {
      cwd: ROOT,
      env: { ...process.env, INBOXD_DATA_DIR: inst.dataDir, ...knownDatabaseEnv(inst.dataDir) },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await p.exited).toBe(0);
    expect(await until(() => sse.ended)).toBe(true);
    const after = await sendAndLand(inbox.id, inbox.address, "after passwd");
    expect(sse.text).not.toContain(after);
  });
});

describe("long-polls", () => {
  test("a long-poll in flight answers 401 when its key is revoked, and does not deliver", async () => {
    const key = await newKey();
    const inbox = await createInbox(inst);
    const pending = json(inst.api(`/v1/inboxes/${inbox.id}/messages/latest?wait=30`, { token: key.secret }));
    const pendingList = json(inst.api(`/v1/inboxes/${inbox.id}/messages?wait=30&min=1`, { token: key.secret }));
    await Bun.sleep(200); // let both park
    await json(inst.api(`/v1/api-keys/${key.id}/revoke`, { method: "POST" }));
    await send(inbox.address, "during poll");
    for (const r of [await pending, await pendingList]) {
      expect(r.status).toBe(401);
      expect(r.body.code).toBe("unauthorized");
      expect(typeof r.body.request_id).toBe("string");
    }
  });

  test("a long-poll of a live key still delivers", async () => {
    const key = await newKey();
    const inbox = await createInbox(inst);
    const pending = json(inst.api(`/v1/inboxes/${inbox.id}/messages/latest?wait=30`, { token: key.secret }));
    await Bun.sleep(100);
    const id = await send(inbox.address, "live poll");
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.body.data.id).toBe(id);
  });
});

describe("MCP sessions", () => {
  test("an MCP session stops working once its key is revoked, and its agent session is released", async () => {
    const key = await newKey();
    const transport = new StreamableHTTPClientTransport(new URL(`${inst.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key.secret}` } },
    });
    const client = new Client({ name: "revocation-test", version: "1.0.0" });
    await client.connect(transport);
    const ok = await client.callTool({ name: "list_inboxes", arguments: {} });
    expect(ok.isError).toBeFalsy();
    const runsBefore = await json(inst.api("/v1/runs?limit=100"));
    const run = runsBefore.body.data.find((r: any) => r.trigger?.type === "mcp" && r.status === "running");
    expect(run).toBeDefined();

    await json(inst.api(`/v1/api-keys/${key.id}/revoke`, { method: "POST" }));
    let failed = false;
    try {
      const r = await client.callTool({ name: "list_inboxes", arguments: {} });
      failed = !!r.isError;
    } catch {
      failed = true;
    }
    expect(failed).toBe(true);
    // The agent session the MCP session opened is released, so its run is no longer running.
    let status = "running";
    for (let i = 0; i < 100 && status === "running"; i++) {
      status = (await json(inst.api(`/v1/runs/${run.id}`))).body.data.status;
      if (status === "running") await Bun.sleep(50);
    }
    expect(status).not.toBe("running");
    await client.close().catch(() => {});
  });
});

describe("IMAP and POP3 sessions", () => {
  test("IMAP: rotating the inbox's credentials says BYE to the session logged in with them", async () => {
    const box = await newBox(inst);
    const raw = await RawImap.open(inst.ports.imap!);
    await raw.login(box);
    expect(await raw.cmd("S1", "SELECT INBOX")).toContain("S1 OK");
    const rot = await json(inst.api(`/v1/inboxes/${box.id}/credentials/rotate`, { method: "POST" }));
    expect(rot.status).toBe(200);
    expect(rot.body.data.password).not.toBe(box.password);
    expect(await raw.until("* BYE")).toContain("credentials were revoked");
    expect(await raw.waitClosed()).toBe(true);

    // The old password no longer logs in; the new one does (imapflow).
    const stale = imapflow(inst, box);
    let refused = false;
    await stale.connect().catch(() => (refused = true));
    expect(refused).toBe(true);
    const fresh = imapflow(inst, { ...box, password: rot.body.data.password });
    await fresh.connect();
    expect((await fresh.mailboxOpen("INBOX")).path).toBe("INBOX");
    await fresh.logout();
  });

  test("IMAP (imapflow): the client sees the connection close when the credentials rotate", async () => {
    const box = await newBox(inst);
    const c = imapflow(inst, box);
    let closed = false;
    c.on("close", () => (closed = true));
    c.on("error", () => {});
    await c.connect();
    await c.mailboxOpen("INBOX");
    await json(inst.api(`/v1/inboxes/${box.id}/credentials/rotate`, { method: "POST" }));
    expect(await until(() => closed)).toBe(true);
  });

  test("IMAP: deleting the inbox says BYE", async () => {
    const box = await newBox(inst);
    const raw = await RawImap.open(inst.ports.imap!);
    await raw.login(box);
    expect((await inst.api(`/v1/inboxes/${box.id}`, { method: "DELETE" })).status).toBe(204);
    expect(await raw.until("* BYE")).toContain("deleted");
    expect(await raw.waitClosed()).toBe(true);
  });

  test("POP3: rotating the credentials answers -ERR and closes at once, without waiting for a command", async () => {
    const box = await newBox(inst);
    const pop = await Pop3Client.connect(inst.ports.pop3!);
    expect(await pop.line()).toStartWith("+OK");
    expect(await pop.login(box.address, box.password)).toStartWith("+OK");
    await json(inst.api(`/v1/inboxes/${box.id}/credentials/rotate`, { method: "POST" }));
    expect(await pop.line()).toStartWith("-ERR [AUTH]");
    expect(await until(() => pop.isEnded())).toBe(true);

    const again = await Pop3Client.connect(inst.ports.pop3!);
    await again.line();
    expect(await again.login(box.address, box.password)).toStartWith("-ERR");
    again.close();
  });

  test("POP3: deleting the inbox answers -ERR and closes", async () => {
    const box = await newBox(inst);
    const pop = await Pop3Client.connect(inst.ports.pop3!);
    await pop.line();
    expect(await pop.login(box.address, box.password)).toStartWith("+OK");
    expect((await inst.api(`/v1/inboxes/${box.id}`, { method: "DELETE" })).status).toBe(204);
    expect(await pop.line()).toStartWith("-ERR [SYS/PERM]");
    expect(await until(() => pop.isEnded())).toBe(true);
  });

  test("rotating another project's inbox is 404, and an unknown id is 404 in the envelope", async () => {
    const r = await json(inst.api("/v1/inboxes/01ARZ3NDEKTSV4RRFFQ69G5FAV/credentials/rotate", { method: "POST" }));
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("not_found");
    const ro = await newKey(["inboxes:read"]);
    const inbox = await createInbox(inst);
    const denied = await json(inst.api(`/v1/inboxes/${inbox.id}/credentials/rotate`, { method: "POST", token: ro.secret }));
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe("insufficient_scope");
  });
});

describe("device session expiry (sliding, with an absolute cap)", () => {
  let short: Instance;
  beforeAll(async () => {
    short = await startInboxd({ INBOXD_DEVICE_SESSION_IDLE: "2", INBOXD_DEVICE_SESSION_MAX: "6" });
  });
  afterAll(async () => {
    await short.stop();
    short.cleanup();
  });

  test("a token used within the idle window keeps working; one left unused past it answers 401", async () => {
    const used = await login(short);
    const idle = await login(short);
    const created = await json(short.api("/v1/devices", { token: used }));
    const row = created.body.data.find((d: any) => d.current);
    expect(Date.parse(row.expires_at)).toBeGreaterThan(Date.now());
    // Used every 0.7 s for 3.5 s: well inside a 2 s idle window each time.
    for (let i = 0; i < 5; i++) {
      await Bun.sleep(700);
      expect((await short.api("/v1/me", { token: used })).status).toBe(200);
    }
    // The other token was not used for 3.5 s > 2 s.
    const r = await json(short.api("/v1/me", { token: idle }));
    expect(r.status).toBe(401);
    expect(r.body.code).toBe("unauthorized");
    // It is gone from the device list too.
    const list = await json(short.api("/v1/devices?limit=100", { token: used }));
    expect(list.body.data.length).toBe(1);
  });

  test("the absolute cap ends a session however often it is used", async () => {
    const token = await login(short);
    let status = 200;
    const deadline = Date.now() + 15_000;
    while (status === 200 && Date.now() < deadline) {
      await Bun.sleep(500);
      status = (await short.api("/v1/me", { token })).status;
    }
    expect(status).toBe(401);
  });
});
