// `inboxd mcp --url URL --key KEY [--agent AGENT_ID]`: an MCP server on stdio for clients that only
// speak stdio. It relays JSON-RPC messages to a running inboxd's /mcp (Streamable HTTP), so the
// tools, the agent session and its permission checks all live in one place: the server.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UsageError } from "./args";
import { quoted } from "../lib/errors";

/** The HTTP status of an answer inboxd gave (StreamableHTTPError's code): inboxd refusing, not inboxd being away. */
function httpStatusOf(e: unknown): number | null {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "number" && code > 0 ? code : null;
}

/**
 * What a failed send means. `refused`: before a session exists, a 404 or 401 is a wrong --url or --key and no
 * answer an inboxd that is not there; starting again mends neither. `ended`: the session is gone (404: expired
 * after INBOXD_AGENT_SESSION_TTL or released; 401: the key revoked or rotated). `call`: this call only.
 */
function failureOf(e: any, inSession: boolean, endpoint: URL): { message: string; kind: "refused" | "ended" | "call" } {
  const status = httpStatusOf(e);
  if (!inSession && status === 404)
    return { kind: "refused", message: `no inboxd MCP endpoint at ${endpoint.origin}${endpoint.pathname} (HTTP 404): check --url` };
  if (!inSession && status === 401) return { kind: "refused", message: "the API key was refused (HTTP 401): check --key" };
  if (!inSession && status === null) return { kind: "refused", message: `inboxd unreachable at ${endpoint.origin}: ${e.message}` };
  if (status === 404 || status === 401) {
    const why = status === 401 ? "the API key was revoked or rotated" : "expired after INBOXD_AGENT_SESSION_TTL, or released";
    return { kind: "ended", message: `the MCP session ended (${why}): start inboxd mcp again` };
  }
  return { kind: "call", message: status ? `inboxd answered HTTP ${status}: ${e.message}` : `inboxd unreachable: ${e.message}` };
}

export async function mcpStdio(args: Record<string, string>): Promise<number> {
  const base = args.url || process.env.INBOXD_URL;
  const key = args.key || process.env.INBOXD_API_KEY;
  if (!base || !key) {
    console.error("usage: inboxd mcp --url http://127.0.0.1:8025 --key isk_live_… [--agent AGENT_ID]");
    return 2;
  }
  let endpoint: URL;
  try {
    // Relative to the base's path: inboxd behind a proxy at http://host/inboxd/ has its /mcp at /inboxd/mcp.
    endpoint = new URL("mcp", base.endsWith("/") ? base : `${base}/`);
  } catch {
    throw new UsageError(`--url must be an absolute http(s) URL such as http://127.0.0.1:8025, got ${quoted(base)}`);
  }
  if (endpoint.protocol !== "http:" && endpoint.protocol !== "https:") {
    throw new UsageError(`--url must be an absolute http(s) URL such as http://127.0.0.1:8025, got ${quoted(base)}`);
  }
  if (args.agent) endpoint.searchParams.set("agent_id", args.agent);
  const remote = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${key}` } } });
  const local = new StdioServerTransport();

  let closing = false;
  let finish: (code: number) => Promise<void> = async () => {};
  // Requests sent and not yet answered: input that ends (`echo '{…}' | inboxd mcp`) still gets their answers.
  const unanswered = new Set<string | number>();
  let inputEnded = false;
  const answered = (id: unknown) => {
    unanswered.delete(id as string | number);
    if (inputEnded && unanswered.size === 0) void finish(0);
  };
  const done = new Promise<number>((resolve) => {
    finish = async (code: number) => {
      if (closing) return;
      closing = true;
      // Ends the MCP session on the server, which releases its agent session (cleanup ledger).
      await remote.terminateSession().catch(() => {});
      await remote.close().catch(() => {});
      resolve(code);
    };
    local.onclose = () => void finish(0);
    // An HTTP answer to a send (StreamableHTTPError, a numeric code) is told by send's own handler below, once.
    remote.onerror = (e) => {
      if (httpStatusOf(e) === null) console.error(`inboxd mcp: ${e.message}`);
    };
    process.stdin.on("end", () => {
      inputEnded = true;
      if (unanswered.size === 0) void finish(0);
    });
    process.once("SIGINT", () => void finish(0));
    process.once("SIGTERM", () => void finish(0));
  });

  // A line the stdio transport cannot take (over its 10 MiB buffer, not JSON) is said on stderr, not dropped unseen.
  local.onerror = (e) => console.error(`inboxd mcp: ${e.message}`);
  // Messages that follow an initialize wait for its answer, which brings the session id they need: a client
  // waits for it anyway, a script that pipes its whole dialogue in does not.
  let initializing: Promise<unknown> = Promise.resolve();
  local.onmessage = (msg) => {
    const id = (msg as any).id;
    if ("method" in msg && id !== undefined) unanswered.add(id);
    const initialize = "method" in msg && msg.method === "initialize";
    const send = initialize ? remote.send(msg) : initializing.then(() => remote.send(msg));
    if (initialize) initializing = send.catch(() => {});
    send.catch(async (e) => {
      const { message, kind } = failureOf(e, remote.sessionId !== undefined, endpoint);
      if (id !== undefined) await local.send({ jsonrpc: "2.0", id, error: { code: kind === "ended" ? -32001 : -32000, message } } as any);
      // An ended session takes every later call with it, and a refused start every call: exit, so the client
      // shows the server as stopped (and restarts it, or shows the line on stderr) instead of failing each call.
      if (kind !== "call") {
        console.error(`inboxd mcp: ${message}`);
        void finish(1);
      }
      answered(id);
    });
  };
  remote.onmessage = (msg) => {
    void local.send(msg).then(() => {
      if (!("method" in msg) && "id" in msg) answered(msg.id);
    });
  };
  await remote.start();
  await local.start();
  return done;
}
