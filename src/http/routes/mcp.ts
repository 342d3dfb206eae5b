// The MCP endpoint (Streamable HTTP) at /mcp, authenticated by an API key. Initialising an MCP
// session opens an agent session (as POST /v1/agent-sessions; ?agent_id= or X-Agent-Id picks the
// agent); closing the MCP session (HTTP DELETE) or the agent session's expiry releases it.
import { Elysia } from "elysia";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RouteModule } from ".";
import { ApiCaller } from "../../mcp/api";
import { DomainError } from "../../lib/errors";
import { newId } from "../../lib/ids";

/** The MCP SDK, its zod schemas and our tools: loaded with the first request to /mcp, not at start-up
 * (~0.2-0.3 s of module loading that most instances, which never see an agent, would pay). */
async function loadMcp() {
  const [transport, types, params, server] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("../../mcp/request-params"),
    import("../../mcp/server"),
  ]);
  return {
    Transport: transport.WebStandardStreamableHTTPServerTransport,
    isInitializeRequest: types.isInitializeRequest,
    invalidParams: params.invalidParams,
    normaliseRequest: params.normaliseRequest,
    buildMcpServer: server.buildMcpServer,
  };
}
type Mcp = Awaited<ReturnType<typeof loadMcp>>;
let mcpLoaded: Promise<Mcp> | undefined;

interface Entry {
  principalId: string;
  /** Stops watching the credential the session was opened with (tenancy/revocation.ts). */
  unwatch: () => void;
  projectId: string;
  agentSessionId: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  /**
   * The calls still running, each as the way to answer it now. When the session ends (DELETE, its agent
   * session released or expired, its key revoked) the transport's close() drops their answers, so end()
   * answers each with an error instead of leaving its HTTP request open.
   */
  running: Set<() => void>;
}

/** Ends a session's running calls (Entry.running). */
function end(e: Entry): void {
  for (const answer of [...e.running]) answer();
  e.running.clear();
}

const rpcError = (status: number, message: string, code = -32000, id: unknown = null) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id }), {
    status,
    headers: { "content-type": "application/json" },
  });

/** Hands a message to the session's transport, after the checks the SDK reports badly (request-params.ts). */
function forward(mcp: Mcp, e: Entry, request: Request, body: unknown): Promise<Response> | Response {
  if (request.method !== "POST") return e.transport.handleRequest(request, { parsedBody: body });
  mcp.normaliseRequest(body);
  const refused = mcp.invalidParams(body);
  if (refused) return Response.json(refused);
  const id = body && typeof body === "object" && !Array.isArray(body) && "id" in body ? (body as { id: unknown }).id : null;
  return new Promise<Response>((resolve, reject) => {
    const cut = () =>
      resolve(rpcError(404, "the MCP session ended (closed, released, expired, or its key revoked) before this call finished", -32001, id));
    e.running.add(cut);
    e.transport.handleRequest(request, { parsedBody: body }).then(
      (r) => {
        e.running.delete(cut);
        resolve(r);
      },
      (err) => {
        e.running.delete(cut);
        reject(err);
      },
    );
  });
}

const mod: RouteModule = (ctx, s) => {
  const sessions = new Map<string, Entry>();

  const release = async (e: Entry) => {
    end(e);
    e.unwatch();
    sessions.delete(e.transport.sessionId ?? "");
    try {
      await s.agentSessions.release(e.projectId, e.agentSessionId);
    } catch {}
  };

  // An agent session that expired or was released over REST ends its MCP session too.
  let sweeping = false;
  const sweep = setInterval(async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      for (const e of [...sessions.values()]) {
        const row = await s.agentSessions.state(e.agentSessionId);
        if (row?.status !== "open" || Date.parse(row.expires_at) <= Date.now()) {
          end(e);
          e.unwatch();
          sessions.delete(e.transport.sessionId ?? "");
          void e.transport.close().catch(() => {});
          if (row?.status === "open") void s.agentSessions.expireDue().catch((err) => console.error("agent session expiry failed", err));
        }
      }
    } catch (err) {
      console.error("MCP session sweep failed", err);
    } finally {
      sweeping = false;
    }
  }, 2_000);
  (sweep as any).unref?.();

  const handle = async ({ request, body }: { request: Request; body: unknown }) => {
    const principal = await s.auth.authenticate(request.headers.get("authorization"));
    if (principal.kind !== "api_key") throw new DomainError("forbidden", "principal_not_permitted", "/mcp is authenticated by an API key");
    const mcp = await (mcpLoaded ??= loadMcp());
    const sid = request.headers.get("mcp-session-id");
    if (sid) {
      const e = sessions.get(sid);
      if (!e || e.principalId !== principal.id) return rpcError(404, "unknown or expired MCP session", -32001);
      return forward(mcp, e, request, body);
    }
    if (request.method !== "POST" || !mcp.isInitializeRequest(body)) {
      return rpcError(400, "no MCP session: send an initialize request first (without mcp-session-id)");
    }
    // What the transport would refuse (406), refused before an agent session is opened for it: a client that
    // gets no MCP session id could never close it, and it would hold its run until the session's TTL.
    const accept = request.headers.get("accept") ?? "";
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
      return rpcError(406, "Not Acceptable: Client must accept both application/json and text/event-stream");
    }
    const fetcher = (req: Request) => ctx.internalFetch!(req);
    const token = /^Bearer\s+(\S+)/i.exec(request.headers.get("authorization") ?? "")![1]!;
    const api = new ApiCaller(fetcher, token);
    const url = new URL(request.url);
    const agentId = url.searchParams.get("agent_id") ?? request.headers.get("x-agent-id") ?? undefined;
    const opened = await api.call("POST", "/v1/agent-sessions", { body: agentId ? { agent_id: agentId } : {} });
    if (opened.status !== 201) {
      return new Response(JSON.stringify(opened.body), { status: opened.status, headers: { "content-type": "application/json" } });
    }
    const session = opened.body.data;
    api.agentSessionId = session.ulid;
    const server = mcp.buildMcpServer(ctx, api, () => session.agent.ulid);
    const entry = {
      principalId: principal.id,
      projectId: session.project.ulid,
      agentSessionId: session.ulid,
      server,
      running: new Set(),
    } as Entry;
    // The key revoked or rotated: the MCP session ends and its agent session is released (its
    // cleanup ledger applied), as a client's DELETE would.
    entry.unwatch = s.revocations.watchPrincipal(principal, request.headers.get("authorization"), () => {
      void release(entry);
      void entry.transport.close().catch(() => {});
    });
    entry.transport = new mcp.Transport({
      sessionIdGenerator: () => newId(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => void sessions.set(id, entry),
      onsessionclosed: () => release(entry),
    });
    await server.connect(entry.transport);
    return forward(mcp, entry, request, body);
  };

  return new Elysia()
    .post("/mcp", handle as any, { detail: { summary: "MCP endpoint (Streamable HTTP); API key as bearer token", tags: ["mcp"] } })
    .get("/mcp", handle as any, { detail: { summary: "MCP server-to-client stream", tags: ["mcp"] } })
    .delete("/mcp", handle as any, { detail: { summary: "Close the MCP session (releases its agent session)", tags: ["mcp"] } });
};

export default mod;
