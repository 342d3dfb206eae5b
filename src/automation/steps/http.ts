// http.request: only to an allowed origin of the project, never following redirects (a redirect
// could leave the allowed list), with a bounded response body.
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
  const headers = new Headers((p.headers ?? {}) as Record<string, string>);
  let body: string | undefined;
  if (p.json !== undefined) {
    body = JSON.stringify(p.json);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  } else if (p.body !== undefined) body = String(p.body);
  const timeoutMs = (p.timeout_seconds ?? 30) * 1000;
  const timeout = AbortSignal.timeout(timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body, redirect: "manual", signal: AbortSignal.any([sc.signal, timeout]) });
  } catch (e) {
    if (sc.signal.aborted) throw sc.signal.reason;
    if (timeout.aborted)
      throw new StepError(
        "http_timeout",
        `http.request: ${method} ${url.origin}${url.pathname} took longer than ${p.timeout_seconds ?? 30} s`,
      );
    throw new StepError("http_error", `http.request: ${method} ${url.origin}${url.pathname} failed: ${(e as Error).message}`);
  }
  const buf = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(buf.subarray(0, MAX_BODY));
  let parsed: unknown = text;
  if ((res.headers.get("content-type") ?? "").includes("json")) {
    try {
      parsed = JSON.parse(text);
    } catch {}
  }
  const outHeaders: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (k !== "set-cookie") outHeaders[k] = v;
  });
  return { status: res.status, ok: res.ok, headers: outHeaders, body: parsed };
};
