// How MCP tools reach inboxd: through the REST API itself (in-process via app.handle), with the
// caller's API key and the MCP session's X-Service-Agent-Session header. So every tool call goes
// through the same routes, services, three-axis permission check and run recording as any
// session-bound REST call; nothing is allowed to MCP that REST would refuse.

export interface ApiResult {
  status: number;
  body: any;
}

export type Fetcher = (req: Request) => Promise<Response>;

export class ApiCaller {
  constructor(
    private readonly fetcher: Fetcher,
    private readonly token: string,
    public agentSessionId: string | null = null,
  ) {}

  async call(
    method: string,
    path: string,
    opts: { body?: unknown; query?: Record<string, string | number | undefined> } = {},
  ): Promise<ApiResult> {
    const url = new URL(`http://inboxd.internal${path}`);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
    if (this.agentSessionId) headers["x-service-agent-session"] = this.agentSessionId;
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    const res = await this.fetcher(
      new Request(url, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }),
    );
    const text = await res.text();
    let body: any = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    return { status: res.status, body };
  }
}

/** A REST error envelope turned into the error a tool reports. */
export class ToolError extends Error {
  constructor(
    readonly status: number,
    readonly envelope: { code: string; message: string; details?: unknown; request_id?: string },
  ) {
    super(envelope.message);
  }
}

export function ok(r: ApiResult): any {
  if (r.status >= 400) {
    const env = r.body && typeof r.body === "object" && "code" in r.body ? r.body : { code: "error", message: String(r.body) };
    throw new ToolError(r.status, env);
  }
  return r.body;
}
