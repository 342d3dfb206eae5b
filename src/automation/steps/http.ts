// http.request: only to an allowed origin of the project, only to an address the egress policy
// permits (lib/egress.ts, checked on the address connected to), never following redirects (a
// redirect could leave the allowed list), with a response body bounded as it streams.
import { EgressError, guardedRequest } from "../../lib/egress";
import { StepError, type StepHandler } from "./types";

const MAX_BODY = 1024 * 1024;

export const httpRequest: StepHandler = async (sc, p) => {
  let url: URL;
  try {
    url = new URL(String(p.url));
  } catch {
    throw new StepError("invalid_url", `http.request: ${JSON.stringify(p.url)} is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new StepError("invalid_url", "http.request: only http and https URLs");
  const origin = await sc.deps.origins.match(sc.project.id, url);
  if (!origin) {
    throw new StepError(
      "origin_not_allowed",
      `http.request: ${url.origin} is not an allowed HTTP origin of this project; add it with POST /v1/http-origins`,
    );
  }
  await sc.deps.origins.touch(origin.id);
  const method = String(p.method ?? "GET").toUpperCase();
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries((p.headers ?? {}) as Record<string, unknown>)) headers[k.toLowerCase()] = String(v);
  let body: string | undefined;
  if (p.json !== undefined) {
    body = JSON.stringify(p.json);
    if (!headers["content-type"]) headers["content-type"] = "application/json";
  } else if (p.body !== undefined) body = String(p.body);
  const where = `${method} ${url.origin}${url.pathname}`;
  let res: Awaited<ReturnType<typeof guardedRequest>>;
  try {
    res = await guardedRequest({
      method,
      url,
      policy: sc.ctx.egress.tenant,
      timeoutMs: (p.timeout_seconds ?? 30) * 1000,
      headers,
      body,
      readBodyBytes: MAX_BODY,
      signal: sc.signal,
    });
  } catch (e) {
    if (sc.signal.aborted) throw sc.signal.reason;
    const code = e instanceof EgressError ? e.code : "connect";
    if (code === "private_address") throw new StepError("egress_denied", `http.request: ${where} refused: ${(e as Error).message}`);
    if (code === "timeout") throw new StepError("http_timeout", `http.request: ${where} took longer than ${p.timeout_seconds ?? 30} s`);
    throw new StepError("http_error", `http.request: ${where} failed: ${(e as Error).message}`);
  }
  const text = new TextDecoder().decode(res.body);
  let parsed: unknown = text;
  if (String(res.headers["content-type"] ?? "").includes("json")) {
    try {
      parsed = JSON.parse(text);
    } catch {}
  }
  const outHeaders: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) {
    if (k !== "set-cookie" && v !== undefined) outHeaders[k] = Array.isArray(v) ? v.join(", ") : v;
  }
  return { status: res.status, ok: res.status >= 200 && res.status < 300, headers: outHeaders, body: parsed };
};
