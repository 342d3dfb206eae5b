// The MCP server, through the SDK's own client over both transports (Streamable HTTP and stdio).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import nodemailer from "nodemailer";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { json, ROOT, startInboxd, type Instance } from "../support/harness";
import { inboxdCommand } from "../support/command";

let inst: Instance;

beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

async function httpClient(key = inst.key, agentId?: string) {
  const url = new URL(`${inst.url}/mcp`);
  if (agentId) url.searchParams.set("agent_id", agentId);
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}` } } });
  const client = new Client({ name: "inboxd-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

const data = (r: any) => r.structuredContent ?? JSON.parse(r.content[0].text);

async function sendMail(to: string, subject: string, text: string) {
  const t = nodemailer.createTransport({ host: "127.0.0.1", port: inst.ports.smtp, secure: false, ignoreTLS: true });
  await t.sendMail({ from: "App <noreply@app.test>", to, subject, text });
  t.close();
}

async function flow(client: Client) {
  const tools = await client.listTools();
  const names = tools.tools.map((t) => t.name);
  for (const n of [
    "create_inbox",
    "list_inboxes",
    "delete_inbox",
    "set_inbox_chaos",
    "clear_inbox_chaos",
    "set_smtp_chaos",
    "clear_smtp_chaos",
    "wait_for_message",
    "list_messages",
    "get_message",
    "get_verification_code",
    "get_links",
    "check_spam",
    "check_html",
    "check_auth",
    "check_links",
    "get_attachment",
    "send_test_email",
    "list_scenarios",
    "run_scenario",
    "get_run",
  ]) {
    expect(names).toContain(n);
  }
  const wait = tools.tools.find((t) => t.name === "wait_for_message")!;
  expect(wait.inputSchema.required).toContain("inbox_id");
  const inbox = data(await client.callTool({ name: "create_inbox", arguments: { name: "mcp flow" } }));
  expect(inbox.address).toContain("@");
  const waiting = client.callTool({
    name: "wait_for_message",
    arguments: { inbox_id: inbox.id, timeout_seconds: 20, subject_contains: "verify" },
  });
  await Bun.sleep(200);
  await sendMail(inbox.address, "Please verify your email", "Your verification code is 482913. It expires in 10 minutes.");
  const msg = data(await waiting);
  expect(msg.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  const code = data(await client.callTool({ name: "get_verification_code", arguments: { message_id: msg.id } }));
  expect(code.code).toBe("482913");
  // This instance has no spamd (INBOXD_SPAMD): the tool says so instead of scoring.
  const spam: any = await client.callTool({ name: "check_spam", arguments: { message_id: msg.id } });
  expect(spam.isError).toBe(true);
  expect(data(spam).error.code).toBe("analysis_unavailable");
  // The mail has no links: the link check answers an empty list.
  expect(data(await client.callTool({ name: "check_links", arguments: { message_id: msg.id } }))).toEqual({ links: [], truncated: false });
  return inbox;
}

describe("MCP over Streamable HTTP", () => {
  test("lists the tools and runs a flow: create inbox, SMTP, wait_for_message, get_verification_code", async () => {
    const { client, transport } = await httpClient();
    const inbox = await flow(client);
    // Calls are recorded on the agent session's run.
    const runs = await json(inst.api("/v1/runs?limit=5"));
    expect(runs.status).toBe(200);
    const mcpRun = runs.body.data.find((r: any) => r.trigger?.type === "mcp");
    expect(mcpRun).toBeDefined();
    const events = await json(inst.api(`/v1/runs/${mcpRun.id}/events?limit=100`));
    const calls = events.body.data.filter((e: any) => e.type === "session.call");
    expect(calls.some((e: any) => e.payload.method === "POST" && e.payload.path === "/v1/inboxes" && e.payload.status === 201)).toBe(true);
    await transport.terminateSession();
    await client.close();
    // Closing the session cleans up the inbox it created.
    let status = 200;
    for (let n = 0; n < 20 && status !== 404; n++) {
      status = (await inst.api(`/v1/inboxes/${inbox.id}`)).status;
      if (status !== 404) await Bun.sleep(100);
    }
    expect(status).toBe(404);
  });

  test("a tool outside the agent's permissions is refused with the contract's code", async () => {
    const agent = await json(
      inst.api("/v1/agents", { method: "POST", json: { name: "read-only agent", permissions: ["inboxes:read", "runs:write"] } }),
    );
    expect(agent.status).toBe(201);
    const { client, transport } = await httpClient(inst.key, agent.body.data.id);
    const r: any = await client.callTool({ name: "create_inbox", arguments: {} });
    expect(r.isError).toBe(true);
    expect(data(r).error.code).toBe("insufficient_scope");
    const listed: any = await client.callTool({ name: "list_inboxes", arguments: {} });
    expect(listed.isError).toBeFalsy();
    await transport.terminateSession();
    await client.close();
  });

  test("send_test_email delivers to an inbox of the project; get_links reads its links", async () => {
    const { client, transport } = await httpClient();
    const inbox = data(await client.callTool({ name: "create_inbox", arguments: {} }));
    const sent = data(
      await client.callTool({
        name: "send_test_email",
        arguments: { inbox_id: inbox.id, subject: "Hello", text: "Open https://example.test/welcome?x=1 now" },
      }),
    );
    expect(sent.sent).toBe(true);
    const msg = data(await client.callTool({ name: "wait_for_message", arguments: { inbox_id: inbox.id, timeout_seconds: 10 } }));
    const links = data(await client.callTool({ name: "get_links", arguments: { message_id: msg.id } }));
    expect(links.untrusted.provenance).toBe("third-party-email");
    expect(links.untrusted.links).toEqual([{ url: "https://example.test/welcome?x=1", text: "" }]);
    await transport.terminateSession();
    await client.close();
  });

  test("set_inbox_chaos makes mail to the inbox fail; clear_inbox_chaos restores it", async () => {
    const { client, transport } = await httpClient();
    const inbox = data(await client.callTool({ name: "create_inbox", arguments: {} }));
    const rules = [{ stage: "rcpt", code: 550, message: "closed for the test" }];
    const set = data(await client.callTool({ name: "set_inbox_chaos", arguments: { inbox_id: inbox.id, rules } }));
    expect(set.rules[0].reply).toBe("550 5.7.1 closed for the test");
    const refused: any = await client.callTool({ name: "send_test_email", arguments: { inbox_id: inbox.id, subject: "x", text: "x" } });
    expect(refused.isError).toBe(true);
    expect(data(refused).error.message).toContain("550 5.7.1 closed for the test");
    const cleared = data(await client.callTool({ name: "clear_inbox_chaos", arguments: { inbox_id: inbox.id } }));
    expect(cleared).toEqual({ cleared: true, inbox_id: inbox.id });
    const sent = data(await client.callTool({ name: "send_test_email", arguments: { inbox_id: inbox.id, subject: "y", text: "y" } }));
    expect(sent.sent).toBe(true);
    await transport.terminateSession();
    await client.close();
  });

  test("send_test_email: a refusal at end of data is smtp_refused with the reply, short, never the message; it needs messages:write", async () => {
    const { client, transport } = await httpClient();
    const inbox = data(await client.callTool({ name: "create_inbox", arguments: {} }));
    await client.callTool({ name: "set_inbox_chaos", arguments: { inbox_id: inbox.id, rules: [{ stage: "data", code: 554 }] } });
    const refused: any = await client.callTool({
      name: "send_test_email",
      arguments: { inbox_id: inbox.id, subject: "big", text: "A".repeat(300_000) },
    });
    expect(refused.isError).toBe(true);
    const err = data(refused).error;
    expect([err.status, err.code, err.details.step, err.details.smtp_code]).toEqual([422, "smtp_refused", "end of data", 554]);
    expect(JSON.stringify(err).length).toBeLessThan(1000);
    await transport.terminateSession();
    await client.close();
    // An agent that may read inboxes but not write messages cannot store one this way either (REST's compose would refuse).
    const agent = await json(
      inst.api("/v1/agents", { method: "POST", json: { name: "no writes", permissions: ["inboxes:read", "messages:read", "runs:write"] } }),
    );
    const ro = await httpClient(inst.key, agent.body.data.id);
    const kept = (await json(inst.api("/v1/inboxes", { method: "POST", json: {} }))).body.data; // the session's own inbox went with it
    expect(data(await ro.client.callTool({ name: "list_inboxes", arguments: {} })).data.map((i: any) => i.id)).toContain(kept.id);
    const tried: any = await ro.client.callTool({ name: "send_test_email", arguments: { inbox_id: kept.id, subject: "x", text: "x" } });
    expect([tried.isError, data(tried).error.code]).toEqual([true, "insufficient_scope"]);
    await ro.transport.terminateSession();
    await ro.client.close();
  });

  test("wait_for_message's *_contains filters find a matching message already there, not only the newest", async () => {
    const { client, transport } = await httpClient();
    const inbox = data(await client.callTool({ name: "create_inbox", arguments: {} }));
    await sendMail(inbox.address, "Verify your account", "code 482913");
    await sendMail(inbox.address, "Welcome to Acme", "hello");
    await client.callTool({ name: "wait_for_message", arguments: { inbox_id: inbox.id, q: "subject:welcome", timeout_seconds: 10 } });
    for (const filter of [{ subject_contains: "verify" }, { body_contains: "482913" }, { from_contains: "noreply@app" }]) {
      const r: any = await client.callTool({ name: "wait_for_message", arguments: { inbox_id: inbox.id, timeout_seconds: 2, ...filter } });
      expect([filter, r.isError ?? false, data(r).untrusted?.subject ?? data(r).subject]).toEqual([
        filter,
        false,
        filter.from_contains ? "Welcome to Acme" : "Verify your account",
      ]);
    }
    await transport.terminateSession();
    await client.close();
  });

  test("misuse: message_id of another inbox, an empty inbox, an initialize the transport refuses, list_scenarios pages", async () => {
    const { client, transport } = await httpClient();
    const [a, b] = [
      data(await client.callTool({ name: "create_inbox", arguments: {} })),
      data(await client.callTool({ name: "create_inbox", arguments: {} })),
    ];
    const empty: any = await client.callTool({ name: "get_message", arguments: { inbox_id: b.id } });
    expect([empty.isError, data(empty).error.code, data(empty).error.message]).toEqual([true, "not_found", "the inbox has no message yet"]);
    // A refusal of the tool's own carries the whole envelope too (docs/mcp.md): details and a request id.
    const neither: any = await client.callTool({ name: "get_message", arguments: {} });
    expect(data(neither).error).toMatchObject({
      status: 422,
      code: "validation_error",
      message: "give message_id or inbox_id",
      details: {},
    });
    expect(data(neither).error.request_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    await sendMail(a.address, "for a", "code 123456");
    const m = data(await client.callTool({ name: "wait_for_message", arguments: { inbox_id: a.id, timeout_seconds: 10 } }));
    const crossed: any = await client.callTool({ name: "get_verification_code", arguments: { message_id: m.id, inbox_id: b.id } });
    expect([crossed.isError, data(crossed).error.code]).toEqual([true, "validation_error"]);
    // The resource: its messages; a bad id is -32602, an unknown inbox -32002 (not -32603, an internal error).
    const read = await client.readResource({ uri: `inboxd://inboxes/${a.id}/messages` });
    expect(JSON.parse((read.contents[0] as any).text).map((x: any) => x.subject)).toEqual(["for a"]);
    for (const [uri, code] of [
      ["inboxd://inboxes/zzz/messages", -32602],
      ["inboxd://inboxes/01ARZ3NDEKTSV4RRFFQ69G5FAV/messages", -32002],
    ] as const) {
      const e = await client.readResource({ uri }).then(
        () => null,
        (x) => x,
      );
      expect([uri, e?.code]).toEqual([uri, code]);
    }
    const tools = (await client.listTools()).tools;
    expect(Object.keys((tools.find((t) => t.name === "list_scenarios")!.inputSchema as any).properties).sort()).toEqual([
      "cursor",
      "limit",
    ]);
    await transport.terminateSession();
    await client.close();
    // A body that is not JSON is JSON-RPC's Parse error, not the REST envelope.
    const garbled = await fetch(`${inst.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${inst.key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{not json",
    });
    expect([garbled.status, ((await garbled.json()) as any).error?.code]).toEqual([400, -32700]);
    // Refused by the transport (no text/event-stream in Accept): 406, and no agent session left open for it.
    const open = async () => (await json(inst.api("/v1/runs?status=running&limit=100"))).body.data.length;
    const before = await open();
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${inst.url}/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${inst.key}`, "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
        }),
      });
      expect(r.status).toBe(406);
    }
    expect(await open()).toBe(before);
  });

  test("a call still running when the session is closed is answered (an error), not left open", async () => {
    const { client, transport } = await httpClient();
    const inbox = data(await client.callTool({ name: "create_inbox", arguments: {} }));
    const headers = {
      authorization: `Bearer ${inst.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": transport.sessionId!,
      "mcp-protocol-version": transport.protocolVersion ?? "2025-06-18",
    };
    const waiting = fetch(`${inst.url}/mcp`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 41,
        method: "tools/call",
        params: { name: "wait_for_message", arguments: { inbox_id: inbox.id, q: "subject:never", timeout_seconds: 30 } },
      }),
      signal: AbortSignal.timeout(20_000),
    });
    await Bun.sleep(500);
    expect((await fetch(`${inst.url}/mcp`, { method: "DELETE", headers })).status).toBe(200);
    const r = await waiting;
    const body: any = await r.json();
    expect([r.status, body.id, body.error.code]).toEqual([404, 41, -32001]);
    await client.close();
  });

  test("set_smtp_chaos refuses new connections with 421; clear_smtp_chaos restores the greeting; a key without * may not", async () => {
    const { client, transport } = await httpClient();
    const set = data(
      await client.callTool({ name: "set_smtp_chaos", arguments: { rules: [{ stage: "connect", code: 421, message: "mcp says later" }] } }),
    );
    expect(set.rules[0].reply).toBe("421 4.3.2 mcp says later");
    const greeting = async () => {
      const socket = connect({ port: inst.ports.smtp!, host: "127.0.0.1" });
      const line = await new Promise<string>((resolve) => socket.once("data", (d) => resolve(String(d))));
      socket.destroy();
      return line;
    };
    expect(await greeting()).toBe("421 4.3.2 mcp says later\r\n");
    expect(data(await client.callTool({ name: "clear_smtp_chaos", arguments: {} }))).toEqual({ cleared: true });
    expect(await greeting()).toStartWith("220 ");
    await transport.terminateSession();
    await client.close();

    const key = (
      await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "no star", scopes: ["inboxes:write", "runs:write"] } }))
    ).body.data.secret;
    const limited = await httpClient(key);
    const refused: any = await limited.client.callTool({ name: "set_smtp_chaos", arguments: { rules: [] } });
    expect(refused.isError).toBe(true);
    expect(data(refused).error.code).toBe("principal_not_permitted");
    await limited.transport.terminateSession();
    await limited.client.close();
  });

  test("list_messages and wait_for_message take q (the search grammar); a bad q is the route's 422", async () => {
    const { client, transport } = await httpClient();
    const inbox = data(await client.callTool({ name: "create_inbox", arguments: {} }));
    const tools = (await client.listTools()).tools;
    for (const n of ["list_messages", "wait_for_message"]) {
      expect(Object.keys((tools.find((t) => t.name === n)!.inputSchema as any).properties)).toContain("q");
    }
    await sendMail(inbox.address, "Welcome aboard", "hello there");
    await sendMail(inbox.address, "Your code", "code 771234 inside");
    // Waits past the non-matching newest message for a matching one, sent after the wait began.
    const waiting = client.callTool({
      name: "wait_for_message",
      arguments: { inbox_id: inbox.id, timeout_seconds: 10, q: 'subject:"password reset" -from:spam' },
    });
    await Bun.sleep(300);
    await sendMail(inbox.address, "Password reset", "reset link https://app.test/reset");
    const hit = data(await waiting);
    expect(hit.untrusted.subject).toBe("Password reset");
    const listed = data(await client.callTool({ name: "list_messages", arguments: { inbox_id: inbox.id, q: "has:code" } }));
    expect(listed.data.map((m: any) => m.subject)).toEqual(["Your code"]);
    const all = data(await client.callTool({ name: "list_messages", arguments: { inbox_id: inbox.id } }));
    expect(all.data.length).toBe(3);
    const bad: any = await client.callTool({ name: "list_messages", arguments: { inbox_id: inbox.id, q: "nosuchkey:x" } });
    expect(bad.isError).toBe(true);
    expect(data(bad).error).toMatchObject({ status: 422, code: "validation_error" });
    const badWait: any = await client.callTool({
      name: "wait_for_message",
      arguments: { inbox_id: inbox.id, timeout_seconds: 1, q: '"open' },
    });
    expect(badWait.isError).toBe(true);
    expect(data(badWait).error.code).toBe("validation_error");
    await transport.terminateSession();
    await client.close();
  });

  test("arguments: null is no arguments (as Go, Java and C# clients send it); malformed params are -32602 naming the field, not -32603", async () => {
    const { client, transport } = await httpClient();
    const call = async (message: Record<string, unknown>) => {
      const r = await fetch(`${inst.url}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${inst.key}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": transport.sessionId!,
          "mcp-protocol-version": transport.protocolVersion ?? "2025-06-18",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, ...message }),
      });
      expect(r.status).toBe(200);
      return (await r.json()) as any;
    };
    const listed = await call({ method: "tools/call", params: { name: "list_inboxes", arguments: null } });
    expect(listed.error).toBeUndefined();
    expect(listed.result.isError).toBeFalsy();
    expect(Array.isArray(data(listed.result).data)).toBe(true);

    const refusals: [Record<string, unknown>, string][] = [
      [{ method: "tools/call", params: { name: "list_inboxes", arguments: [] } }, "params.arguments"],
      [{ method: "tools/call", params: { name: 5 } }, "params.name"],
      [{ method: "tools/call" }, "params"],
      [{ method: "resources/read", params: { uri: 5 } }, "params.uri"],
      [{ method: "tools/list", params: { cursor: 5 } }, "params.cursor"],
    ];
    for (const [message, field] of refusals) {
      const answer = await call(message);
      expect(answer.id).toBe(7);
      expect(answer.error.code).toBe(-32602);
      expect(answer.error.message).toStartWith(`Invalid params: ${field}: `);
    }
    // The session is unharmed: the SDK's client goes on.
    expect((await client.listTools()).tools.length).toBeGreaterThan(10);
    await transport.terminateSession();
    await client.close();
  });

  test("/mcp needs an API key", async () => {
    const r = await fetch(`${inst.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
    });
    expect(r.status).toBe(401);
  });
});

describe("MCP over stdio (inboxd mcp)", () => {
  test("forwards to the running server: same tools, same flow; closing releases the session", async () => {
    const [command, ...pre] = inboxdCommand();
    const transport = new StdioClientTransport({
      command: command!,
      args: [...pre, "mcp", "--url", inst.url, "--key", inst.key],
      cwd: ROOT,
      stderr: "pipe",
    });
    const client = new Client({ name: "inboxd-stdio-test", version: "1.0.0" });
    await client.connect(transport);
    const inbox = await flow(client);
    await client.close();
    let status = 200;
    for (let n = 0; n < 40 && status !== 404; n++) {
      status = (await inst.api(`/v1/inboxes/${inbox.id}`)).status;
      if (status !== 404) await Bun.sleep(100);
    }
    expect(status).toBe(404);
  });

  test("--url with a path (inboxd behind a proxy at /inboxd/) reaches that path's /mcp", async () => {
    // A reverse proxy that serves inboxd under /inboxd/ only, as a shared lab's nginx would.
    const proxy = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(req) {
        const u = new URL(req.url);
        if (!u.pathname.startsWith("/inboxd/")) return new Response("not here", { status: 404 });
        return fetch(`${inst.url}${u.pathname.slice("/inboxd".length)}${u.search}`, {
          method: req.method,
          headers: req.headers,
          body: req.body,
        });
      },
    });
    try {
      for (const url of [`http://127.0.0.1:${proxy.port}/inboxd`, `http://127.0.0.1:${proxy.port}/inboxd/`]) {
        const [command, ...pre] = inboxdCommand();
        const transport = new StdioClientTransport({
          command: command!,
          args: [...pre, "mcp", "--url", url, "--key", inst.key],
          cwd: ROOT,
          stderr: "pipe",
        });
        const client = new Client({ name: "inboxd-stdio-test", version: "1.0.0" });
        await client.connect(transport);
        const listed = await client.callTool({ name: "list_inboxes", arguments: {} });
        expect(listed.isError).toBeFalsy();
        expect(Array.isArray(data(listed).data)).toBe(true);
        await client.close();
      }
    } finally {
      proxy.stop(true);
    }
  });

  test("a --url with no inboxd behind it, or a --key inboxd refuses, is said as such at the start and the relay exits", async () => {
    const cases = [
      { url: `${inst.url}/nothing-here`, key: inst.key, says: "no inboxd MCP endpoint at", hint: "check --url" },
      { url: inst.url, key: "isk_live_not_a_key", says: "the API key was refused (HTTP 401)", hint: "check --key" },
      // Port 1: nothing listens there (tcpmux is long gone).
      { url: "http://127.0.0.1:1", key: inst.key, says: "inboxd unreachable at http://127.0.0.1:1", hint: "inboxd unreachable at" },
    ];
    for (const c of cases) {
      const [command, ...pre] = inboxdCommand();
      const transport = new StdioClientTransport({
        command: command!,
        args: [...pre, "mcp", "--url", c.url, "--key", c.key],
        cwd: ROOT,
        stderr: "pipe",
      });
      let stderr = "";
      transport.stderr?.on("data", (b: Buffer) => (stderr += b.toString()));
      const exited = new Promise<boolean>((resolve) => {
        transport.onclose = () => resolve(true);
        setTimeout(() => resolve(false), 10_000);
      });
      const failed = await new Client({ name: "inboxd-stdio-test", version: "1.0.0" }).connect(transport).then(
        () => null,
        (e) => e,
      );
      expect(failed?.message).toContain(c.says);
      expect(failed?.message).not.toContain("session ended");
      expect(await exited).toBe(true);
      expect(stderr).toContain(c.hint);
    }
  });

  test("a whole dialogue piped in (input ends at once) is answered in order before the relay exits; a refused one exits 1", async () => {
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "pipe", version: "1" } },
    };
    const run = async (key: string, lines: unknown[]) => {
      const [command, ...pre] = inboxdCommand();
      const proc = Bun.spawn([command!, ...pre, "mcp", "--url", inst.url, "--key", key], {
        cwd: ROOT,
        stdin: new Blob([lines.map((l) => `${JSON.stringify(l)}\n`).join("")]),
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      return {
        answers: out
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
        err,
        code,
      };
    };
    const ok = await run(inst.key, [
      init,
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_inboxes", arguments: {} } },
    ]);
    expect(ok.answers.map((a) => [a.id, !!a.result, a.error?.message])).toEqual([
      [1, true, undefined],
      [2, true, undefined],
    ]);
    expect([ok.code, ok.err]).toEqual([0, ""]);
    const refused = await run("isk_live_not_a_key", [init]);
    expect(refused.answers.map((a) => a.error?.message)).toEqual(["the API key was refused (HTTP 401): check --key"]);
    // Said once on stderr, in our words (the transport's own report of the same answer is not repeated).
    expect([refused.code, refused.err.trim()]).toEqual([1, "inboxd mcp: the API key was refused (HTTP 401): check --key"]);
  });

  test("a session ended under it (the key revoked) fails the next call with -32001 saying so, and the relay exits", async () => {
    const k = await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "stdio relay" } }));
    expect(k.status).toBe(201);
    const [command, ...pre] = inboxdCommand();
    const transport = new StdioClientTransport({
      command: command!,
      args: [...pre, "mcp", "--url", inst.url, "--key", k.body.data.secret],
      cwd: ROOT,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name: "inboxd-stdio-test", version: "1.0.0" });
    await client.connect(transport);
    expect((await client.callTool({ name: "list_inboxes", arguments: {} })).isError).toBeFalsy();
    expect((await inst.api(`/v1/api-keys/${k.body.data.id}/revoke`, { method: "POST" })).status).toBe(200);
    const failed = await client.callTool({ name: "list_inboxes", arguments: {} }).then(
      () => null,
      (e) => e,
    );
    expect(failed?.code).toBe(-32001);
    expect(failed?.message).toContain("the API key was revoked or rotated");
    const exited = await new Promise<boolean>((resolve) => {
      transport.onclose = () => resolve(true);
      setTimeout(() => resolve(false), 10_000);
    });
    expect(exited).toBe(true);
    expect(stderr).toContain("start inboxd mcp again");
  });
});
