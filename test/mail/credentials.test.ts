// GET /v1/inboxes/{id}/credentials: username = address, a per-inbox password that is stable until
// the inbox is deleted (restarts included), and pop3/imap blocks equal to the inbox resource's
// and to the ports actually bound. The password is checked by logging in over POP3.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, login, startInboxd, type Instance } from "../support/harness";
import { Pop3Client } from "../support/pop3-client";

const PUBLIC_HOST = "mail.example.test";
let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd({ INBOXD_PUBLIC_HOST: PUBLIC_HOST });
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

async function createInbox(i: Instance = inst): Promise<any> {
  const r = await json(i.api("/v1/inboxes", { method: "POST", json: {} }));
  expect(r.status).toBe(201);
  return r.body.data;
}

async function credentials(id: string, i: Instance = inst): Promise<{ status: number; body: any }> {
  return json(i.api(`/v1/inboxes/${id}/credentials`));
}

async function pop3Login(i: Instance, user: string, password: string): Promise<string> {
  const c = await Pop3Client.connect(i.ports.pop3!);
  try {
    await c.line();
    return await c.login(user, password);
  } finally {
    c.close();
  }
}

describe("inbox credentials", () => {
  test("username is the address; pop3/imap blocks equal the inbox resource and the bound ports", async () => {
    const inbox = await createInbox();
    const r = await credentials(inbox.id);
    expect(r.status).toBe(200);
    const c = r.body.data;
    expect(Object.keys(c).sort()).toEqual(["imap", "password", "pop3", "username"]);
    expect(c.username).toBe(inbox.address);
    expect(typeof c.password).toBe("string");
    expect(c.password.length).toBeGreaterThanOrEqual(16);
    expect(c.pop3).toEqual(inbox.pop3);
    expect(c.imap).toEqual(inbox.imap);
    expect(c.pop3).toEqual({ host: PUBLIC_HOST, port: inst.ports.pop3! });
    expect(c.imap.host).toBe(PUBLIC_HOST);
    // IMAP is a separate listener; when it runs, the block names its real port.
    expect(c.imap.port).toBe(inst.ports.imap!);
    const shown = await json(inst.api(`/v1/inboxes/${inbox.id}`));
    expect(shown.body.data.pop3).toEqual(c.pop3);
    expect(shown.body.data.imap).toEqual(c.imap);
  });

  test("the password is stable across calls, differs between inboxes and opens only its own inbox", async () => {
    const a = await createInbox();
    const b = await createInbox();
    const ca = (await credentials(a.id)).body.data;
    const cb = (await credentials(b.id)).body.data;
    expect((await credentials(a.id)).body.data.password).toBe(ca.password);
    expect(ca.password).not.toBe(cb.password);
    expect(await pop3Login(inst, ca.username, ca.password)).toStartWith("+OK");
    expect(await pop3Login(inst, cb.username, cb.password)).toStartWith("+OK");
    expect(await pop3Login(inst, cb.username, ca.password)).toStartWith("-ERR [AUTH]");
  });

  test("deleting the inbox ends its credentials: 404 and log-in refused", async () => {
    const inbox = await createInbox();
    const c = (await credentials(inbox.id)).body.data;
    expect((await inst.api(`/v1/inboxes/${inbox.id}`, { method: "DELETE" })).status).toBe(204);
    const r = await credentials(inbox.id);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("not_found");
    expect(await pop3Login(inst, c.username, c.password)).toStartWith("-ERR [AUTH]");
  });

  test("needs inboxes:read; another project's inbox is 404", async () => {
    const inbox = await createInbox();
    const key = await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "narrow", scopes: ["messages:read"] } }));
    expect(key.status).toBe(201);
    const denied = await json(inst.api(`/v1/inboxes/${inbox.id}/credentials`, { token: key.body.data.secret }));
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe("insufficient_scope");
    expect((await json(inst.api(`/v1/inboxes/${inbox.id}/credentials`, { token: null }))).status).toBe(401);

    const device = await login(inst);
    const project = await json(inst.api("/v1/projects", { method: "POST", token: device, json: { name: "Other" } }));
    expect(project.status).toBe(201);
    const foreign = await json(inst.api("/v1/inboxes", { method: "POST", token: device, project: project.body.data.id, json: {} }));
    expect(foreign.status).toBe(201);
    const cross = await credentials(foreign.body.data.id);
    expect(cross.status).toBe(404);
    const own = await json(inst.api(`/v1/inboxes/${foreign.body.data.id}/credentials`, { token: device, project: project.body.data.id }));
    expect(own.status).toBe(200);
    expect(own.body.data.username).toBe(foreign.body.data.address);
  });

  test("survives a restart: same password, blocks follow the newly bound ports", async () => {
    const inbox = await createInbox();
    const before = (await credentials(inbox.id)).body.data;
    await inst.stop();
    inst = await inst.restart();
    const after = (await credentials(inbox.id)).body.data;
    expect(after.username).toBe(before.username);
    expect(after.password).toBe(before.password);
    expect(after.pop3).toEqual({ host: PUBLIC_HOST, port: inst.ports.pop3! });
    expect(after.imap.port).toBe(inst.ports.imap!);
    expect(await pop3Login(inst, after.username, after.password)).toStartWith("+OK");
  });
});
