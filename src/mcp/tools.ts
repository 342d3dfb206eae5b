// The MCP tools and resources: short descriptions, precise input schemas, each a thin wrapper over
// one or two REST calls (see api.ts for why). Sender-written text reaches the model only inside
// the untrusted envelope of the agent views, so instructions hidden in mail stay fenced.
import { z } from "zod";
import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { type ApiCaller, ok, ToolError } from "./api";
import { newId } from "../lib/ids";
import { log } from "../lib/log";
import { SmtpRefused } from "../lib/smtp-send";
import type { CheckName } from "../mail/analyses";

/** MCP's code for a resource that does not exist (the specification's "Resource not found"). */
const RESOURCE_NOT_FOUND = -32002;

const Ulid = z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, "a 26-character ULID");
/** The search of GET /v1/inboxes/{id}/messages (docs/search.md); the server parses it (422 with the reason). */
const SearchQ = z
  .string()
  .max(1000)
  .optional()
  .describe(
    'search: words, "phrases", from:, to:, subject:, code:, header:Name=value, has:attachment|code|link, is:read|unread, after:/before:YYYY-MM-DD, larger:/smaller:10k, -negation; terms combine with AND',
  );

/** A caller's own code pattern (GET /v1/messages/{id}?pattern=, docs/parsing.md). */
const PatternArg = z
  .string()
  .min(1)
  .max(256)
  .optional()
  .describe(
    "your own regular expression (JavaScript syntax; a leading (?i) ignores case) for the code: its matches (first capture group if any) replace the extracted codes",
  );

/** Which message a reading tool reads: by id, or the newest of an inbox (matching q when given). */
const MessageChoice = {
  message_id: Ulid.optional(),
  inbox_id: Ulid.optional().describe("used when message_id is omitted: the newest message of this inbox (matching q)"),
  q: SearchQ,
};

export interface ToolHost {
  api: ApiCaller;
  /** Sends a message over SMTP to an inbox address (send_test_email). */
  sendMail(to: string, subject: string, text?: string, html?: string): Promise<string>;
  /** The agent the MCP session acts as (default for run_scenario). */
  agentId: () => string | null;
}

type Json = Record<string, unknown>;

function result(data: unknown) {
  return {
    content: [{ type: "text" as const, text: JSON.stringify(data, null, 2) }],
    structuredContent: (data && typeof data === "object" && !Array.isArray(data) ? data : { result: data }) as Json,
  };
}

/**
 * Contract errors come back as MCP tool errors carrying the contract's envelope, whole: a refusal of
 * the tool's own (no REST call behind it) gets empty details and a request id of its own, logged.
 */
function failure(e: unknown) {
  const requestId = newId();
  let err: { status: number; code: string; message: string; details: unknown; request_id: string };
  if (e instanceof ToolError) {
    err = { status: e.status, ...e.envelope, details: e.envelope.details ?? {}, request_id: e.envelope.request_id ?? requestId };
    if (!e.envelope.request_id) log.info({ request_id: requestId, status: e.status, code: e.envelope.code }, "mcp tool refused");
  } else {
    err = { status: 500, code: "internal", message: String((e as Error)?.message ?? e), details: {}, request_id: requestId };
    log.error({ err: e, request_id: requestId }, "mcp tool failed");
  }
  return {
    isError: true,
    content: [{ type: "text" as const, text: JSON.stringify({ error: err }) }],
    structuredContent: { error: err } as Json,
  };
}

function tool<S extends z.ZodRawShape>(
  server: McpServer,
  name: string,
  description: string,
  shape: S,
  run: (args: z.infer<z.ZodObject<S>>) => Promise<unknown>,
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean } = {},
) {
  server.registerTool(name, { description, inputSchema: shape, annotations }, (async (args: any) => {
    try {
      return result(await run(args));
    } catch (e) {
      return failure(e);
    }
  }) as any);
}

function matches(m: any, f: { subject_contains?: string; from_contains?: string; body_contains?: string }): boolean {
  const has = (hay: unknown, needle?: string) =>
    needle === undefined ||
    String(hay ?? "")
      .toLowerCase()
      .includes(needle.toLowerCase());
  const body = [m.text, m.untrusted?.text, m.preview, typeof m.html === "string" ? m.html : ""].join("\n");
  const from = `${m.from?.name ?? ""} <${m.from?.email ?? ""}>`;
  return has(m.subject ?? m.untrusted?.subject, f.subject_contains) && has(from, f.from_contains) && has(body, f.body_contains);
}

const ANALYSIS_TOOLS: Array<[name: string, check: CheckName, description: string]> = [
  [
    "check_spam",
    "spam",
    "Score a message with SpamAssassin (the server's spamd): score, threshold, is_spam and the rules that fired. Fails with analysis_unavailable when the server has no spamd configured.",
  ],
  [
    "check_html",
    "html",
    "Email-client support of a message's HTML and CSS (caniemail data): an overall score, and a warning per feature some client supports partly or not at all, with those clients (e.g. display:flex not in Outlook for Windows).",
  ],
  [
    "check_auth",
    "auth",
    "SPF, DKIM, DMARC and ARC of a message as the server checked them at receipt: an overall verdict (pass, fail, none) and each mechanism's result with its comment.",
  ],
  [
    "check_links",
    "links",
    "Request every link and remote image of a message (HEAD, then GET) and report each URL's final HTTP status, ok, redirects and error (timeout, dns, private_address, redirect_loop, ...). Private and internal addresses are refused unless the server allows them.",
  ],
];

export function registerTools(server: McpServer, host: ToolHost): void {
  const { api } = host;

  /** The chosen message in a view: GET /v1/messages/{id}, or the inbox's newest (matching q) without waiting. */
  const pick = async (
    a: { message_id?: string; inbox_id?: string; q?: string },
    query: Record<string, string | number | undefined>,
  ): Promise<any> => {
    if (!a.message_id && !a.inbox_id) throw new ToolError(422, { code: "validation_error", message: "give message_id or inbox_id" });
    if (a.message_id && a.q !== undefined) {
      throw new ToolError(422, {
        code: "validation_error",
        message: "q picks the newest matching message of inbox_id; leave it out when giving message_id",
      });
    }
    if (a.message_id) {
      const m = ok(await api.call("GET", `/v1/messages/${a.message_id}`, { query })).data;
      // Both given: they must agree, or the answer would be another inbox's message than the agent meant.
      if (a.inbox_id && m.inbox_id !== a.inbox_id) {
        throw new ToolError(422, { code: "validation_error", message: "message_id is not a message of inbox_id; give one of them" });
      }
      return m;
    }
    const r = await api.call("GET", `/v1/inboxes/${a.inbox_id}/messages/latest`, { query: { wait: 0, q: a.q, ...query } });
    // The route's 404 speaks of a long poll's baseline; this tool does not wait.
    if (r.status === 404 && r.body?.code === "not_found" && r.body?.details && "poll_token" in r.body.details) {
      throw new ToolError(404, {
        code: "not_found",
        message: a.q === undefined ? "the inbox has no message yet" : "no message of the inbox matches q",
      });
    }
    return ok(r).data;
  };

  tool(
    server,
    "create_inbox",
    "Create a disposable test inbox; returns its id and email address.",
    {
      name: z.string().max(100).optional().describe("label for the inbox"),
      ttl_seconds: z.number().int().min(60).max(2592000).optional().describe("lifetime in seconds (default 24 h)"),
      local_part: z.string().max(64).optional().describe("claim this local part on the project's shared domain"),
    },
    async (a) => ok(await api.call("POST", "/v1/inboxes", { body: a })).data,
  );

  tool(
    server,
    "list_inboxes",
    "List the project's inboxes, newest first.",
    {
      limit: z.number().int().min(1).max(100).optional(),
      cursor: Ulid.optional().describe("links.next of the previous page"),
    },
    async (a) => ok(await api.call("GET", "/v1/inboxes", { query: a })),
    { readOnlyHint: true },
  );

  tool(
    server,
    "delete_inbox",
    "Delete an inbox and all its messages.",
    { inbox_id: Ulid },
    async (a) => {
      ok(await api.call("DELETE", `/v1/inboxes/${a.inbox_id}`));
      return { deleted: true, inbox_id: a.inbox_id };
    },
    { destructiveHint: true },
  );

  tool(
    server,
    "set_inbox_chaos",
    "Fault injection: replace an inbox's rules so that mail to it gets an SMTP failure (4xx temporary, 5xx permanent) at RCPT or at the end of DATA, with a probability and a delay; refused mail is not stored. An empty list turns it off.",
    {
      inbox_id: Ulid,
      rules: z
        .array(
          z.object({
            stage: z.enum(["rcpt", "data"]).describe("rcpt: refuse this recipient; data: refuse the whole message after DATA"),
            code: z.number().int().min(400).max(599).describe("SMTP reply code"),
            message: z.string().min(1).max(200).optional().describe("reply text (default names inboxd chaos)"),
            rate: z.number().min(0).max(1).optional().describe("probability that the rule fires (default 1)"),
            delay_ms: z.number().int().min(0).max(30000).optional().describe("send the failure this late"),
          }),
        )
        .max(10)
        .describe("tried in order per stage; the first that fires wins"),
    },
    async (a) => ok(await api.call("PUT", `/v1/inboxes/${a.inbox_id}/chaos`, { body: { rules: a.rules } })).data,
  );

  tool(
    server,
    "clear_inbox_chaos",
    "Remove an inbox's fault-injection rules: mail to it is accepted again.",
    { inbox_id: Ulid },
    async (a) => {
      ok(await api.call("DELETE", `/v1/inboxes/${a.inbox_id}/chaos`));
      return { cleared: true, inbox_id: a.inbox_id };
    },
  );

  tool(
    server,
    "set_smtp_chaos",
    "Connection faults (instance-wide, the instance's operator only: the bootstrap key): replace the SMTP listeners' connect rules so that a new connection gets its greeting late (no code), or 421 (closed, the sender retries) or 554 (no service until QUIT), with a probability and a delay. An empty list turns it off.",
    {
      rules: z
        .array(
          z.object({
            stage: z.literal("connect"),
            code: z
              .union([z.literal(421), z.literal(554)], { error: "code is 421, 554 or null (a late greeting only)" })
              .nullable()
              .optional()
              .describe("absent or null: only delay the 220 greeting"),
            message: z.string().min(1).max(200).optional().describe("reply text of a 421 or 554 (default names inboxd chaos)"),
            rate: z.number().min(0).max(1).optional().describe("probability that the rule fires for a connection (default 1)"),
            delay_ms: z
              .number()
              .int()
              .min(0)
              .max(30000)
              .optional()
              .describe("send the greeting or refusal this late (above 0 without a code)"),
          }),
        )
        .max(10)
        .describe("tried in order; the first that fires wins"),
    },
    async (a) => ok(await api.call("PUT", "/v1/smtp/chaos", { body: { rules: a.rules } })).data,
  );

  tool(
    server,
    "clear_smtp_chaos",
    "Remove the SMTP listeners' connection faults: every connection is greeted at once again (the instance's operator only).",
    {},
    async () => {
      ok(await api.call("DELETE", "/v1/smtp/chaos"));
      return { cleared: true };
    },
  );

  tool(
    server,
    "wait_for_message",
    "Wait up to timeout_seconds (max 60) for a message in the inbox that matches q and the filters; returns it (agent view). Existing messages count unless after_message_id is given.",
    {
      inbox_id: Ulid,
      timeout_seconds: z.number().int().min(0).max(60).default(30),
      subject_contains: z.string().optional(),
      from_contains: z.string().optional(),
      body_contains: z.string().optional(),
      after_message_id: Ulid.optional().describe("only messages newer than this one"),
      q: SearchQ,
    },
    async (a) => {
      const deadline = Date.now() + a.timeout_seconds * 1000;
      let after = a.after_message_id;
      // The *_contains filters are judged here, one message at a time, and the long poll shows only the newest:
      // the messages already there (the 100 newest, newest first) are looked through before waiting for newer.
      const filtered = a.subject_contains !== undefined || a.from_contains !== undefined || a.body_contains !== undefined;
      if (filtered && after === undefined) {
        const present = ok(await api.call("GET", `/v1/inboxes/${a.inbox_id}/messages`, { query: { limit: 100, view: "agent", q: a.q } }))
          .data as any[];
        const hit = present.find((m) => matches(m, a));
        if (hit) return hit;
        after = present[0]?.id;
      }
      for (;;) {
        const wait = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
        const r = await api.call("GET", `/v1/inboxes/${a.inbox_id}/messages/latest`, { query: { wait, after, view: "agent", q: a.q } });
        if (r.status === 404 && r.body?.code === "not_found" && Date.now() >= deadline - 50) {
          throw new ToolError(404, { code: "not_found", message: `no matching message within ${a.timeout_seconds} s` });
        }
        const m = ok(r).data;
        if (matches(m, a)) return m;
        after = m.id;
        if (Date.now() >= deadline)
          throw new ToolError(404, { code: "not_found", message: `no matching message within ${a.timeout_seconds} s` });
      }
    },
    { readOnlyHint: true },
  );

  tool(
    server,
    "list_messages",
    "List an inbox's messages (summary view), newest first; q searches (same grammar as the REST API).",
    {
      inbox_id: Ulid,
      limit: z.number().int().min(1).max(100).optional(),
      cursor: Ulid.optional(),
      q: SearchQ,
    },
    async (a) => ok(await api.call("GET", `/v1/inboxes/${a.inbox_id}/messages`, { query: { limit: a.limit, cursor: a.cursor, q: a.q } })),
    { readOnlyHint: true },
  );

  tool(
    server,
    "get_message",
    "Get one message (by id, or the newest of an inbox matching q) in the agent view: sender-written text is inside an untrusted envelope.",
    MessageChoice,
    async (a) => pick(a, { view: "agent" }),
    { readOnlyHint: true },
  );

  tool(
    server,
    "get_verification_code",
    "The verification code(s) found in a message, or in the newest message of an inbox (matching q); pattern: your own regular expression instead of the built-in extraction.",
    { ...MessageChoice, pattern: PatternArg },
    async (a) => {
      const m = await pick(a, { view: "summary", pattern: a.pattern });
      return { message_id: m.id, code: m.codes?.[0] ?? null, codes: m.codes ?? [] };
    },
    { readOnlyHint: true },
  );

  tool(
    server,
    "get_links",
    "The distinct links of a message (by id, or the newest of an inbox matching q), in order: [{url, text}] with the anchor text, inside an untrusted envelope (the sender wrote both).",
    MessageChoice,
    async (a) => {
      const m = await pick(a, { view: "agent" });
      const u = m.untrusted ?? {};
      return {
        message_id: m.id,
        links_count: m.links_count,
        untrusted: { provenance: u.provenance, nonce: u.nonce, links: u.links ?? [] },
      };
    },
    { readOnlyHint: true },
  );

  // One tool per analysis of the mail itself (docs/analysis.md), each the REST route's answer.
  for (const [name, check, description] of ANALYSIS_TOOLS) {
    tool(
      server,
      name,
      description,
      { message_id: Ulid },
      async (a) => ok(await api.call("GET", `/v1/messages/${a.message_id}/analysis/${check}`)).data,
      { readOnlyHint: true },
    );
  }

  tool(
    server,
    "get_attachment",
    "An attachment's agent representation: metadata, sha256, and decoded text (text/plain, text/csv, text/calendar, application/json only) inside an untrusted envelope with a nonce.",
    { message_id: Ulid, attachment_id: Ulid },
    async (a) => ok(await api.call("GET", `/v1/messages/${a.message_id}/attachments/${a.attachment_id}/agent`)).data,
    { readOnlyHint: true },
  );

  tool(
    server,
    "send_test_email",
    "Send a test email over SMTP to an inbox of this project (to try the other tools).",
    {
      inbox_id: Ulid,
      subject: z.string().min(1).max(998),
      // A test email, not a load test: well inside what an MCP client's line buffer takes (the SDK's stdio: 10 MiB).
      text: z.string().max(1_000_000).optional(),
      html: z.string().max(1_000_000).optional(),
    },
    async (a) => {
      const inbox = ok(await api.call("GET", `/v1/inboxes/${a.inbox_id}`)).data;
      // Storing a message is a write: what REST's compose asks (messages:write), asked here of the same
      // credential and session by a write that changes nothing (mark read up to the smallest id).
      ok(await api.call("POST", `/v1/inboxes/${a.inbox_id}/mark-read`, { body: { last_read_ulid: "00000000000000000000000000" } }));
      try {
        const reply = await host.sendMail(inbox.address, a.subject, a.text ?? (a.html === undefined ? "" : undefined), a.html);
        return { sent: true, to: inbox.address, smtp_reply: reply };
      } catch (e) {
        // A refusal is an answer (a fault-injection rule, the size limit), not a server fault.
        if (!(e instanceof SmtpRefused)) throw e;
        throw new ToolError(e.code >= 500 ? 422 : 503, {
          code: "smtp_refused",
          message: `the SMTP listener refused at ${e.step}: ${e.reply}`,
          details: { step: e.step, reply: e.reply, smtp_code: e.code },
        });
      }
    },
  );

  tool(
    server,
    "list_scenarios",
    "List the project's scenarios, newest first; pass links.next back as cursor for the next page.",
    { limit: z.number().int().min(1).max(100).optional(), cursor: Ulid.optional() },
    async (a) => ok(await api.call("GET", "/v1/scenarios", { query: a })),
    { readOnlyHint: true },
  );

  tool(
    server,
    "run_scenario",
    "Launch a published scenario and wait up to wait_seconds for it to finish or park for approval.",
    {
      scenario_id: Ulid,
      agent_id: Ulid.optional().describe("default: the agent of this MCP session"),
      inputs: z.record(z.string(), z.unknown()).optional(),
      wait_seconds: z.number().int().min(0).max(60).default(30),
    },
    async (a) => {
      const agent_id = a.agent_id ?? host.agentId();
      const body = { scenario_id: a.scenario_id, agent_id, inputs: a.inputs ?? {} };
      return ok(await api.call("POST", "/v1/runs", { query: { wait: a.wait_seconds }, body })).data;
    },
  );

  tool(
    server,
    "get_run",
    "A run's status, steps and failed assertions.",
    { run_id: Ulid },
    async (a) => ok(await api.call("GET", `/v1/runs/${a.run_id}`)).data,
    { readOnlyHint: true },
  );

  server.registerResource(
    "inbox-messages",
    new ResourceTemplate("inboxd://inboxes/{inbox_id}/messages", {
      list: async () => {
        const r = await api.call("GET", "/v1/inboxes", { query: { limit: 100 } });
        if (r.status >= 400) return { resources: [] };
        return {
          resources: r.body.data.map((i: any) => ({
            uri: `inboxd://inboxes/${i.id}/messages`,
            name: `Messages of ${i.address}`,
            mimeType: "application/json",
          })),
        };
      },
    }),
    { description: "The newest messages of an inbox (summary view)", mimeType: "application/json" },
    async (uri, vars) => {
      const id = String(vars.inbox_id);
      // JSON-RPC's own codes, as the spec has them for resources: not an internal error for a bad or unknown id.
      if (!/^[0-9A-HJKMNP-TV-Z]{26}$/.test(id)) throw new McpError(ErrorCode.InvalidParams, `${uri.href}: the inbox id is not a ULID`);
      const r = await api.call("GET", `/v1/inboxes/${id}/messages`, { query: { limit: 50 } });
      if (r.status === 404) throw new McpError(RESOURCE_NOT_FOUND, `${uri.href}: no such inbox in this project`, { uri: uri.href });
      const body = ok(r);
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(body.data, null, 2) }] };
    },
  );
}
