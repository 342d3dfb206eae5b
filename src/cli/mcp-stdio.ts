// `inboxd mcp --url URL --key KEY [--agent AGENT_ID]`: an MCP server on stdio for clients that only
// speak stdio. It relays JSON-RPC messages to a running inboxd's /mcp (Streamable HTTP), so the
// tools, the agent session and its permission checks all live in one place: the server.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export async function mcpStdio(args: Record<string, string>): Promise<number> {
  const base = args.url || process.env.INBOXD_URL;
  const key = args.key || process.env.INBOXD_API_KEY;
  if (!base || !key) {
    console.error("usage: inboxd mcp --url http://127.0.0.1:8025 --key isk_live_… [--agent AGENT_ID]");
    return 2;
  }
  const endpoint = new URL("/mcp", base);
  if (args.agent) endpoint.searchParams.set("agent_id", args.agent);
  const remote = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${key}` } } });
  const local = new StdioServerTransport();

  let closing = false;
  const done = new Promise<number>((resolve) => {
    const finish = async (code: number) => {
      if (closing) return;
      closing = true;
      // Ends the MCP session on the server, which releases its agent session (cleanup ledger).
      await remote.terminateSession().catch(() => {});
      await remote.close().catch(() => {});
      resolve(code);
    };
    local.onclose = () => void finish(0);
    remote.onerror = (e) => console.error(`inboxd mcp: ${e.message}`);
    process.stdin.on("end", () => void finish(0));
    process.once("SIGINT", () => void finish(0));
    process.once("SIGTERM", () => void finish(0));
  });

  local.onmessage = (msg) => {
    remote.send(msg).catch((e) => {
      const id = (msg as any).id;
      if (id !== undefined) {
        void local.send({ jsonrpc: "2.0", id, error: { code: -32000, message: `inboxd unreachable: ${e.message}` } } as any);
      }
    });
  };
  remote.onmessage = (msg) => void local.send(msg);
  await remote.start();
  await local.start();
  return done;
}
