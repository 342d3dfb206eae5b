// The REST client: device-session token and selected project (both in localStorage), the error
// envelope turned into ApiFailure, and "this server has no such route" told apart from a missing row.

const TOKEN = "inboxd.token";
const DEVICE = "inboxd.device";
const EMAIL = "inboxd.email";
const PROJECT = "inboxd.project";

export interface Session {
  token: string;
  deviceId: string;
  email: string;
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown = {},
  ) {
    super(message);
  }
  /** 404/405 from the router itself: the server does not offer this operation (yet). */
  get routeMissing(): boolean {
    return (this.status === 404 && /^no route /.test(this.message)) || this.status === 405;
  }
}

export function session(): Session | null {
  const token = localStorage.getItem(TOKEN);
  if (!token) return null;
  return { token, deviceId: localStorage.getItem(DEVICE) ?? "", email: localStorage.getItem(EMAIL) ?? "" };
}

export function saveSession(s: Session) {
  localStorage.setItem(TOKEN, s.token);
  localStorage.setItem(DEVICE, s.deviceId);
  localStorage.setItem(EMAIL, s.email);
}

export function clearSession() {
  localStorage.removeItem(TOKEN);
  localStorage.removeItem(DEVICE);
}

export const projectId = () => localStorage.getItem(PROJECT);
export const setProjectId = (id: string) => localStorage.setItem(PROJECT, id);

let onUnauthorized: () => void = () => {};
export const setUnauthorizedHandler = (fn: () => void) => (onUnauthorized = fn);

export interface CallOpts {
  method?: string;
  json?: unknown;
  /** A body sent as it is with its content type (an .eml import: message/rfc822). */
  raw?: { body: Blob | ArrayBuffer; type: string };
  /** false for the user-plane routes (/v1/me, /v1/projects, /v1/devices). */
  project?: boolean;
  idempotent?: boolean;
}

function headers(opts: CallOpts): Headers {
  const hd = new Headers();
  const s = session();
  if (s) hd.set("authorization", `Bearer ${s.token}`);
  const p = projectId();
  if (opts.project !== false && p) hd.set("x-service-project", p);
  if (opts.json !== undefined) hd.set("content-type", "application/json");
  if (opts.raw) hd.set("content-type", opts.raw.type);
  if (opts.idempotent) hd.set("idempotency-key", crypto.randomUUID());
  return hd;
}

async function send(path: string, opts: CallOpts): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: opts.method ?? "GET",
      headers: headers(opts),
      body: opts.raw ? opts.raw.body : opts.json === undefined ? undefined : JSON.stringify(opts.json),
    });
  } catch {
    throw new ApiFailure(0, "network", "the server could not be reached");
  }
  if (res.ok) return res;
  let body: any = null;
  try {
    body = await res.json();
  } catch {}
  const err = new ApiFailure(res.status, body?.code ?? "error", body?.message ?? `HTTP ${res.status}`, body?.details);
  if (res.status === 401 && path !== "/v1/devices" && path !== "/v1/signin") onUnauthorized();
  throw err;
}

/** JSON call; resolves with the parsed body (null for 204). */
export async function api<T = any>(path: string, opts: CallOpts = {}): Promise<T> {
  const res = await send(path, opts);
  if (res.status === 204) return null as T;
  return (await res.json()) as T;
}

/** Raw bytes of an authenticated GET (message source, attachments). */
export async function fetchBlob(path: string): Promise<Blob> {
  return (await send(path, {})).blob();
}

export interface Page<T> {
  data: T[];
  meta: { limit: number; has_more: boolean; unread_count?: number; [k: string]: unknown };
  links: { next: string | null };
}

export const list = <T = any>(path: string) => api<Page<T>>(path);

/**
 * POSTs a create (idempotent: a retried click makes one) and returns what was made; a refusal becomes an Error
 * naming `what`, for the dialog that asked to show (dom.ts `dialog` apply), with the ApiFailure as its cause (the
 * dialog focuses the field a validation error names).
 */
export async function createOne<T>(path: string, body: unknown, what: string): Promise<T> {
  try {
    return (await api<{ data: T }>(path, { method: "POST", json: body, idempotent: true })).data;
  } catch (e) {
    throw new Error(`Could not create ${what}: ${describe(e)}`, { cause: e });
  }
}

export function describe(e: unknown): string {
  if (e instanceof ApiFailure) {
    // A malformed id in the address bar: say so, not the schema's pattern.
    const d = e.details as { in?: string; field?: string } | null;
    if (e.code === "validation_error" && d?.in === "params") return `The address holds no valid ${d.field ?? "id"}: it points to nothing.`;
    return e.status ? `${e.message} (${e.code})` : e.message;
  }
  return String((e as Error)?.message ?? e);
}
