// @inboxd/client: a typed client for inboxd's HTTP API (types generated from /openapi.json into
// schema.d.ts, requests through openapi-fetch), plus the helpers tests want: per-test inboxes and
// waiting for a message, a verification code or a link.
import createClient, { type Client } from "openapi-fetch";
import type { components, operations, paths } from "./schema.js";

export type { components, operations, paths };
export type Inbox = components["schemas"]["Inbox"];
export type Message = components["schemas"]["Message"];
export type ApiError = components["schemas"]["Error"];
export type CreateInboxBody = NonNullable<operations["createInbox"]["requestBody"]>["content"]["application/json"];

export interface InboxdOptions {
  /** e.g. http://127.0.0.1:8025 */
  baseUrl: string;
  /** an API key (isk_…) or a device session token (isd_…) */
  apiKey: string;
  /** project ULID (X-Service-Project); needed with a device session */
  project?: string;
  fetch?: typeof fetch;
}

/** An answer in the error envelope {code, message, details, request_id}. */
export class InboxdError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly requestId?: string,
  ) {
    super(`${status} ${code}: ${message}`);
    this.name = "InboxdError";
  }
}

/** Nothing matching arrived within the timeout. */
export class InboxdTimeoutError extends Error {
  constructor(
    readonly inboxId: string,
    readonly timeoutMs: number,
    readonly q?: string,
  ) {
    super(`no message${q ? ` matching ${JSON.stringify(q)}` : ""} arrived in inbox ${inboxId} within ${timeoutMs} ms`);
    this.name = "InboxdTimeoutError";
  }
}

export interface WaitOptions {
  /** search query (docs/search.md), e.g. `subject:"Welcome" from:shop@example.com` */
  q?: string;
  /** milliseconds to wait in all; default 30000 */
  timeout?: number;
  /** only a message newer than this message id counts (default: the newest message counts) */
  after?: string;
}

export interface WaitForLinkOptions extends WaitOptions {
  /** the first link whose URL matches (a RegExp, or a substring) */
  match?: RegExp | string;
}

function fail(status: number, error: unknown): never {
  const e = (error ?? {}) as Partial<ApiError>;
  throw new InboxdError(
    status,
    e.code ?? "error",
    e.message ?? "request failed",
    (e.details as Record<string, unknown>) ?? {},
    e.request_id,
  );
}

export class Inboxd {
  /** The typed openapi-fetch client: every operation of the API, e.g. `api.GET("/v1/usage")`. */
  readonly api: Client<paths>;

  constructor(readonly options: InboxdOptions) {
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      fetch: options.fetch,
      headers: {
        authorization: `Bearer ${options.apiKey}`,
        ...(options.project ? { "x-service-project": options.project } : {}),
      },
    });
  }

  async createInbox(body: CreateInboxBody = {}): Promise<Inbox> {
    const { data, error, response } = await this.api.POST("/v1/inboxes", { body });
    if (!data) fail(response.status, error);
    return data.data;
  }

  async getInbox(id: string): Promise<Inbox> {
    const { data, error, response } = await this.api.GET("/v1/inboxes/{id}", { params: { path: { id } } });
    if (!data) fail(response.status, error);
    return data.data;
  }

  /** Deletes the inbox and its messages; an inbox already gone is not an error. */
  async deleteInbox(id: string): Promise<void> {
    const { error, response } = await this.api.DELETE("/v1/inboxes/{id}", { params: { path: { id } } });
    if (error && response.status !== 404) fail(response.status, error);
  }

  async listMessages(inboxId: string, q?: string): Promise<Message[]> {
    const { data, error, response } = await this.api.GET("/v1/inboxes/{id}/messages", {
      params: { path: { id: inboxId }, query: q ? { q } : {} },
    });
    if (!data) fail(response.status, error);
    return data.data;
  }

  /**
   * The newest message of the inbox (matching q), waiting up to `timeout` for one to arrive: the
   * server's long poll (GET …/messages/latest?wait=), repeated while time is left.
   */
  async waitForMessage(inboxId: string, opts: WaitOptions = {}): Promise<Message> {
    const timeout = opts.timeout ?? 30_000;
    const deadline = Date.now() + timeout;
    for (;;) {
      const left = deadline - Date.now();
      const wait = Math.max(0, Math.min(60, Math.floor(left / 1000)));
      const { data, error, response } = await this.api.GET("/v1/inboxes/{id}/messages/latest", {
        params: {
          path: { id: inboxId },
          query: { wait, view: "full", ...(opts.q ? { q: opts.q } : {}), ...(opts.after ? { after: opts.after } : {}) },
        },
      });
      if (data) return data.data;
      // 404 with details.poll_token: nothing arrived within this wait (a missing inbox has no poll_token).
      const details = (error as Partial<ApiError> | undefined)?.details;
      if (response.status !== 404 || !details || !("poll_token" in details)) fail(response.status, error);
      if (Date.now() >= deadline) throw new InboxdTimeoutError(inboxId, timeout, opts.q);
      if (wait === 0) await new Promise((r) => setTimeout(r, Math.min(250, Math.max(0, deadline - Date.now()))));
    }
  }

  /** The first verification code of the newest message that has one. */
  async waitForCode(inboxId: string, opts: WaitOptions = {}): Promise<string> {
    const m = await this.waitForMessage(inboxId, { ...opts, q: opts.q ? `${opts.q} has:code` : "has:code" });
    return m.codes[0]!;
  }

  /** The first link (matching `match`) of the newest message that has one. */
  async waitForLink(inboxId: string, opts: WaitForLinkOptions = {}): Promise<string> {
    const deadline = Date.now() + (opts.timeout ?? 30_000);
    const matches = (url: string) =>
      opts.match === undefined ? true : typeof opts.match === "string" ? url.includes(opts.match) : opts.match.test(url);
    let after = opts.after;
    for (;;) {
      const m = await this.waitForMessage(inboxId, {
        ...opts,
        after,
        q: opts.q ? `${opts.q} has:link` : "has:link",
        timeout: Math.max(0, deadline - Date.now()),
      });
      const link = (m.links ?? []).find((l) => matches(l.url));
      if (link) return link.url;
      after = m.id;
    }
  }

  /** A fresh inbox for `fn`, deleted afterwards whatever happens. */
  async withInbox<T>(fn: (inbox: TestInbox) => Promise<T>, body: CreateInboxBody = {}): Promise<T> {
    const inbox = await this.testInbox(body);
    try {
      return await fn(inbox);
    } finally {
      await inbox.delete();
    }
  }

  /** A new inbox with its helpers bound (call delete() when done, or use withInbox). */
  async testInbox(body: CreateInboxBody = {}): Promise<TestInbox> {
    const inbox = await this.createInbox(body);
    return {
      id: inbox.id,
      address: inbox.address,
      inbox,
      waitForMessage: (o) => this.waitForMessage(inbox.id, o),
      waitForCode: (o) => this.waitForCode(inbox.id, o),
      waitForLink: (o) => this.waitForLink(inbox.id, o),
      messages: (q) => this.listMessages(inbox.id, q),
      delete: () => this.deleteInbox(inbox.id),
    };
  }
}

export interface TestInbox {
  id: string;
  address: string;
  inbox: Inbox;
  waitForMessage(opts?: WaitOptions): Promise<Message>;
  waitForCode(opts?: WaitOptions): Promise<string>;
  waitForLink(opts?: WaitForLinkOptions): Promise<string>;
  messages(q?: string): Promise<Message[]>;
  delete(): Promise<void>;
}

export function createInboxd(options: InboxdOptions): Inboxd {
  return new Inboxd(options);
}

/** Options from INBOXD_URL (default http://127.0.0.1:8025), INBOXD_API_KEY and INBOXD_PROJECT. */
export function optionsFromEnv(
  env: Record<string, string | undefined> = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {},
): InboxdOptions {
  const apiKey = env.INBOXD_API_KEY;
  if (!apiKey) throw new Error("set INBOXD_API_KEY (an inboxd API key) or pass options");
  return { baseUrl: env.INBOXD_URL ?? "http://127.0.0.1:8025", apiKey, project: env.INBOXD_PROJECT };
}

/**
 * The body of a per-test inbox fixture: creates an inbox, hands it to `use`, deletes it afterwards.
 * src/playwright.ts wraps it in `test.extend`; other runners can call it directly.
 */
export async function inboxFixture(client: Inboxd, use: (inbox: TestInbox) => Promise<void>, body: CreateInboxBody = {}): Promise<void> {
  await client.withInbox(use, body);
}
