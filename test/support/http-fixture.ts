// A local HTTP server for the link check tests: named routes answering with a status (and a
// Location), a route that never answers until released, and a record of every request received.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
}

export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface HttpFixture {
  host: string;
  port: number;
  /** http://host:port */
  origin: string;
  seen: SeenRequest[];
  route(path: string, handler: Route): void;
  /** Resolves when the next request for this path arrives. */
  arrival(path: string): Promise<void>;
  close(): Promise<void>;
}

/** Answers status (with Location when given) to every method. */
export const answer =
  (status: number, location?: string): Route =>
  (_req, res) => {
    res.writeHead(status, location ? { location } : {});
    res.end(status >= 300 && status < 400 ? "" : `status ${status}`);
  };

/** HEAD refused with 405, GET 200: servers that mishandle HEAD. */
export const getOnly: Route = (req, res) => {
  res.writeHead(req.method === "HEAD" ? 405 : 200);
  res.end(req.method === "HEAD" ? "" : "hello");
};

export async function startHttpFixture(host = "127.0.0.1"): Promise<HttpFixture> {
  const routes = new Map<string, Route>();
  const waiters = new Map<string, Array<() => void>>();
  const seen: SeenRequest[] = [];
  const open = new Set<import("node:net").Socket>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    seen.push({ method: req.method ?? "", path, headers: req.headers });
    for (const w of waiters.get(path) ?? []) w();
    waiters.delete(path);
    const handler = routes.get(path);
    if (handler) handler(req, res);
    else answer(404)(req, res);
  });
  server.on("connection", (s) => {
    open.add(s);
    s.on("close", () => open.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    host,
    port,
    origin: `http://${host}:${port}`,
    seen,
    route: (path, handler) => routes.set(path, handler),
    arrival: (path) => new Promise<void>((resolve) => waiters.set(path, [...(waiters.get(path) ?? []), resolve])),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
