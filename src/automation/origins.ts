// Allowed HTTP origins: the only places a run's http.request step (and a webhook) may call.
// An origin is scheme + host + port; `https://*.example.com` matches any subdomain of
// example.com (one or more labels) but not example.com itself.
import type { AppContext } from "../context";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { DomainError, notFound, validation } from "../lib/errors";

export interface OriginRow {
  id: string;
  project_id: string;
  origin: string;
  scheme: string;
  host: string;
  port: number;
  is_wildcard: number;
  description: string | null;
  last_used_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ParsedOrigin {
  origin: string;
  scheme: "http" | "https";
  host: string;
  port: number;
  isWildcard: boolean;
}

const DEFAULT_PORT = { http: 80, https: 443 } as const;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Parses `scheme://host[:port]` (no path, query, fragment or credentials) into its normal form. */
export function parseOrigin(input: string): ParsedOrigin {
  const bad = (why: string) => validation(`origin ${JSON.stringify(input)} is invalid: ${why}`, { field: "origin" });
  if (typeof input !== "string" || input.length > 300) throw bad("expected scheme://host[:port]");
  const m = /^(https?):\/\/(\*\.)?([^/:?#@]+|\[[0-9a-fA-F:.]+\])(?::(\d{1,5}))?\/?$/i.exec(input.trim());
  if (!m) throw bad("expected scheme://host[:port] with scheme http or https and no path, query or credentials");
  const scheme = m[1]!.toLowerCase() as "http" | "https";
  const isWildcard = m[2] !== undefined;
  const host = m[3]!.toLowerCase().replace(/\.$/, "");
  const isIp = /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith("[");
  if (!isIp && !host.split(".").every((l) => LABEL.test(l))) throw bad("host is not a valid host name");
  if (isWildcard && (isIp || !host.includes("."))) throw bad("a wildcard needs a domain of at least two labels, e.g. https://*.example.com");
  const port = m[4] !== undefined ? Number(m[4]) : DEFAULT_PORT[scheme];
  if (port < 1 || port > 65535) throw bad("port must be 1..65535");
  const hostPart = (isWildcard ? "*." : "") + host;
  const origin = `${scheme}://${hostPart}${port === DEFAULT_PORT[scheme] ? "" : `:${port}`}`;
  return { origin, scheme, host, port, isWildcard };
}

export function originMatches(o: Pick<OriginRow, "scheme" | "host" | "port" | "is_wildcard">, url: URL): boolean {
  const scheme = url.protocol.replace(/:$/, "");
  if (scheme !== o.scheme) return false;
  const port = url.port ? Number(url.port) : DEFAULT_PORT[scheme as "http" | "https"];
  if (port !== o.port) return false;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  return o.is_wildcard ? host.endsWith("." + o.host) : host === o.host;
}

export class OriginService {
  constructor(private readonly ctx: AppContext) {}

  private get sql() {
    return this.ctx.db.sqlite;
  }

  create(projectId: string, input: { origin: string; description?: string | null }): OriginRow {
    const p = parseOrigin(input.origin);
    const description = input.description ?? null;
    if (description !== null && description.length > 500) throw validation("description is at most 500 characters", { field: "description" });
    const now = nowIso();
    const row: OriginRow = {
      id: newId(),
      project_id: projectId,
      origin: p.origin,
      scheme: p.scheme,
      host: p.host,
      port: p.port,
      is_wildcard: p.isWildcard ? 1 : 0,
      description,
      last_used_at: null,
      created_at: now,
      updated_at: now,
    };
    const res = this.sql
      .query(
        "INSERT OR IGNORE INTO http_origins (id, project_id, origin, scheme, host, port, is_wildcard, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(row.id, projectId, row.origin, row.scheme, row.host, row.port, row.is_wildcard, description, now, now);
    if (res.changes === 0) {
      const existing = this.sql.query("SELECT id FROM http_origins WHERE project_id = ? AND origin = ?").get(projectId, row.origin) as { id: string };
      throw new DomainError("conflict", "origin_exists", `${row.origin} is already on the list`, { id: existing.id, origin: row.origin });
    }
    return row;
  }

  list(projectId: string, cursor: string | undefined, limit: number): OriginRow[] {
    return this.sql
      .query(`SELECT * FROM http_origins WHERE project_id = ? ${cursor ? "AND id < ?" : ""} ORDER BY id DESC LIMIT ?`)
      .all(...(cursor ? [projectId, cursor, limit + 1] : [projectId, limit + 1])) as OriginRow[];
  }

  get(projectId: string, id: string): OriginRow {
    const row = this.sql.query("SELECT * FROM http_origins WHERE id = ? AND project_id = ?").get(id, projectId) as OriginRow | null;
    if (!row) throw notFound("HTTP origin");
    return row;
  }

  updateDescription(projectId: string, id: string, description: string | null): OriginRow {
    const row = this.get(projectId, id);
    if (description !== null && description.length > 500) throw validation("description is at most 500 characters", { field: "description" });
    const now = nowIso();
    this.sql.query("UPDATE http_origins SET description = ?, updated_at = ? WHERE id = ?").run(description, now, id);
    return { ...row, description, updated_at: now };
  }

  delete(projectId: string, id: string): void {
    if (this.sql.query("DELETE FROM http_origins WHERE id = ? AND project_id = ?").run(id, projectId).changes === 0) throw notFound("HTTP origin");
  }

  /** The allowed origin a URL falls under (exact entries win over wildcards), or null. */
  match(projectId: string, url: URL): OriginRow | null {
    const rows = this.sql.query("SELECT * FROM http_origins WHERE project_id = ? ORDER BY is_wildcard ASC, id ASC").all(projectId) as OriginRow[];
    return rows.find((o) => originMatches(o, url)) ?? null;
  }

  /** For other callers of allowed origins (webhook delivery): records the use of whichever entry admits `url`. */
  recordUse(projectId: string, url: URL): boolean {
    const o = this.match(projectId, url);
    if (o) this.touch(o.id);
    return o !== null;
  }

  touch(id: string): void {
    this.sql.query("UPDATE http_origins SET last_used_at = ? WHERE id = ?").run(nowIso(), id);
  }

  view(row: OriginRow) {
    return {
      id: row.id,
      origin: row.origin,
      scheme: row.scheme,
      host: row.host,
      port: row.port,
      is_wildcard: row.is_wildcard === 1,
      description: row.description,
      last_used_at: row.last_used_at,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }
}
