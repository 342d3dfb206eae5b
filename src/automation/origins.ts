// Allowed HTTP origins: the only places a run's http.request step (and a webhook) may call.
// An origin is scheme + host + port; `https://*.example.com` matches any subdomain of
// example.com (one or more labels) but not example.com itself. Wildcards are for DNS names only:
// `*.0.0.1` would match 127.0.0.1 and 10.0.0.1. A literal address is written the way the URL
// parser writes it (0177.0.0.1 and 2130706433 are 127.0.0.1), so it compares with request URLs.
import type { AppContext } from "../runtime/context";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { DomainError, quoted, notFound, validation } from "../lib/errors";
import type { OriginRow } from "../storage/automation";
import { isIP } from "node:net";
import { classifyAddress } from "../lib/egress";

export type { OriginRow };

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
  const bad = (why: string) => validation(`origin ${quoted(input)} is invalid: ${why}`, { field: "origin" });
  if (typeof input !== "string" || input.length > 300) throw bad("expected scheme://host[:port]");
  const m = /^(https?):\/\/(\*\.)?([^/:?#@]+|\[[0-9a-fA-F:.]+\])(?::(\d{1,5}))?\/?$/i.exec(input.trim());
  if (!m) throw bad("expected scheme://host[:port] with scheme http or https and no path, query or credentials");
  const scheme = m[1]!.toLowerCase() as "http" | "https";
  const isWildcard = m[2] !== undefined;
  const written = m[3]!.toLowerCase().replace(/\.$/, "");
  const host = urlHost(written);
  if (host === null) throw bad("host is not a valid host name or address");
  const isIp = isIpHost(host);
  if (isWildcard && isIp) throw bad("a wildcard needs a DNS name, not an address, e.g. https://*.example.com");
  if (!isIp && !host.split(".").every((l) => LABEL.test(l))) throw bad("host is not a valid host name");
  if (isWildcard && !host.includes(".")) throw bad("a wildcard needs a domain of at least two labels, e.g. https://*.example.com");
  const port = m[4] !== undefined ? Number(m[4]) : DEFAULT_PORT[scheme];
  if (port < 1 || port > 65535) throw bad("port must be 1..65535");
  const hostPart = (isWildcard ? "*." : "") + host;
  const origin = `${scheme}://${hostPart}${port === DEFAULT_PORT[scheme] ? "" : `:${port}`}`;
  return { origin, scheme, host, port, isWildcard };
}

/** The host as the WHATWG URL parser writes it (what request URLs carry), or null when it is not one. */
function urlHost(host: string): string | null {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return null;
  }
}

/** An IP literal as a URL's hostname: dotted IPv4 or a bracketed IPv6. */
function isIpHost(hostname: string): boolean {
  return isIP(hostname.replace(/^\[|\]$/g, "")) !== 0;
}

export function originMatches(o: Pick<OriginRow, "scheme" | "host" | "port" | "is_wildcard">, url: URL): boolean {
  const scheme = url.protocol.replace(/:$/, "");
  if (scheme !== o.scheme) return false;
  const port = url.port ? Number(url.port) : DEFAULT_PORT[scheme as "http" | "https"];
  if (port !== o.port) return false;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  // A wildcard never matches an address (rows stored before wildcards were limited to names included).
  if (o.is_wildcard) return !isIpHost(host) && host.endsWith("." + o.host);
  return host === o.host;
}

export class OriginService {
  constructor(private readonly ctx: AppContext) {}

  private get store() {
    return this.ctx.storage.origins;
  }

  async create(projectId: string, input: { origin: string; description?: string | null }): Promise<OriginRow> {
    const p = parseOrigin(input.origin);
    // A literal address the egress policy refuses could never be called: say so now (names are
    // judged at each request, on the address connected to).
    const ip = p.host.replace(/^\[|\]$/g, "");
    if (isIP(ip) && !this.ctx.egress.tenant.permits(ip, { host: ip, port: p.port })) {
      throw validation(
        `origin ${p.origin} is a ${classifyAddress(ip)} address, which this server's egress policy does not allow (INBOXD_EGRESS_PRIVATE, INBOXD_EGRESS_ALLOW)`,
        { field: "origin", reason: "egress_denied" },
      );
    }
    const description = input.description ?? null;
    if (description !== null && description.length > 500)
      throw validation("description is at most 500 characters", { field: "description" });
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
    if (!(await this.store.insertIfAbsent(row))) {
      const existing = await this.store.idByOrigin(projectId, row.origin);
      throw new DomainError("conflict", "origin_exists", `${row.origin} is already on the list`, { id: existing, origin: row.origin });
    }
    return row;
  }

  list(projectId: string, cursor: string | undefined, limit: number): Promise<OriginRow[]> {
    return this.store.list(projectId, cursor ?? null, limit + 1);
  }

  async get(projectId: string, id: string): Promise<OriginRow> {
    const row = await this.store.inProject(projectId, id);
    if (!row) throw notFound("HTTP origin");
    return row;
  }

  async updateDescription(projectId: string, id: string, description: string | null): Promise<OriginRow> {
    const row = await this.get(projectId, id);
    if (description !== null && description.length > 500)
      throw validation("description is at most 500 characters", { field: "description" });
    const now = nowIso();
    await this.store.updateDescription(id, description, now);
    return { ...row, description, updated_at: now };
  }

  async delete(projectId: string, id: string): Promise<void> {
    if (!(await this.store.delete(projectId, id))) throw notFound("HTTP origin");
  }

  /** The allowed origin a URL falls under (exact entries win over wildcards), or null. */
  async match(projectId: string, url: URL): Promise<OriginRow | null> {
    const rows = await this.store.allForMatching(projectId);
    return rows.find((o) => originMatches(o, url)) ?? null;
  }

  /** Whether the project's list admits the URL; a project without a list admits every URL (webhooks). */
  async admits(projectId: string, url: URL): Promise<boolean> {
    const rows = await this.store.allForMatching(projectId);
    return rows.length === 0 || rows.some((o) => originMatches(o, url));
  }

  /** For other callers of allowed origins (webhook delivery): records the use of whichever entry admits `url`. */
  async recordUse(projectId: string, url: URL): Promise<boolean> {
    const o = await this.match(projectId, url);
    if (o) await this.touch(o.id);
    return o !== null;
  }

  touch(id: string): Promise<void> {
    return this.store.touch(id, nowIso());
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
