import { Elysia, t } from "elysia";
import { Readable } from "node:stream";
import type { RouteModule } from ".";
import { whileAuthorized } from "../revocable";
import { reqOf } from "../request";
import { IdParams, PageQuery, Ulid, SessionHeader } from "./common";
import { limitOf, toPage } from "../pagination";
import { queryInteger } from "../query-integers";
import { requireScope } from "../../tenancy/auth";
import { DomainError, notFound } from "../../lib/errors";
import { encodePollToken } from "../../mail/latest";
import { contentDisposition } from "../../mime/served-type";
import type { MessageView } from "../../mail/messages";
import { MAX_QUERY_LENGTH, searchQueryOf, withFolder } from "../../mail/search-query";
import { idempotent } from "../idempotency";
import { sha256Hex } from "../../storage/blobs";
import { MAX_PATTERN_LENGTH } from "../../mime/pattern";
import * as R from "../resources";
import { One, Page } from "../resources";

const tags = ["messages"];
const ViewQ = (def: MessageView) =>
  t.Optional(
    t.Union([t.Literal("summary"), t.Literal("full"), t.Literal("agent")], {
      default: def,
      description: "summary, full (adds bodies, links, attachments[]) or agent (sender text inside an untrusted envelope)",
    }),
  );
const HeadersQ = t.Optional(
  t.Union([t.Literal("projected"), t.Literal("full")], {
    default: "projected",
    description: "projected: a bounded subset; full: every received header, bounded (headers_truncated)",
  }),
);
const AttParams = t.Object({ id: Ulid(), attachmentId: Ulid() });
const SearchQ = t.Optional(
  t.String({
    maxLength: MAX_QUERY_LENGTH,
    description:
      'search (docs/search.md): words, "phrases", from:, to:, subject:, code:, header:Name=value, has:, is:, after:, before:, larger:, smaller:, -negation',
  }),
);
const PatternQ = t.Optional(
  t.String({
    minLength: 1,
    maxLength: MAX_PATTERN_LENGTH,
    description:
      "your own regular expression for codes (JavaScript syntax, Unicode mode; a leading (?i) ignores case): `codes` then holds its matches over subject, text body and HTML-derived text (first 64 KiB), its first capture group if it has one, at most 5, distinct; invalid or running over 250 ms: 422. See docs/parsing.md",
  }),
);
/** The list routes' search and wait-for-count parameters. */
const FolderQ = t.Optional(
  t.String({
    minLength: 1,
    maxLength: 255,
    description: "only messages filed in this IMAP mailbox (INBOX, Sent, Trash…; docs/imap.md); absent: every mailbox",
  }),
);
const ListSearchQ = {
  q: SearchQ,
  folder: FolderQ,
  wait: t.Optional(
    queryInteger("wait", { minimum: 0, maximum: 60, description: "seconds to hold the answer until `min` messages match, 0..60" }),
  ),
  min: t.Optional(queryInteger("min", { minimum: 1, maximum: 100, description: "matches to wait for, 1..100 (default 1 with wait)" })),
};

/** Binary answers carry the same conventions as JSON ones (request id, rate-limit headers). */
const bytes = (body: Uint8Array | ReadableStream<Uint8Array>, headers: Record<string, string>, set: { headers: Record<string, any> }) =>
  new Response(body as unknown as BodyInit, {
    headers: {
      ...(set.headers as Record<string, string>),
      "x-content-type-options": "nosniff",
      "cache-control": "private, no-store",
      ...headers,
    },
  });

/** The compose body, for the OpenAPI document (the service validates it: 422 with every problem). */
const ComposeBody = t.Object({
  from: t.String({ description: "sender, e.g. Shop <shop@example.com>" }),
  to: t.Optional(t.Union([t.String(), t.Array(t.String())], { description: "To header; default the inbox address" })),
  subject: t.String({ maxLength: 998 }),
  text: t.Optional(t.String({ description: "text body (give text, html or both)" })),
  html: t.Optional(t.String({ description: "HTML body" })),
  attachments: t.Optional(
    t.Array(
      t.Object({
        filename: t.String({ maxLength: 255 }),
        content_type: t.Optional(t.String({ description: "default application/octet-stream" })),
        content_base64: t.String({ description: "the bytes, base64" }),
      }),
      { maxItems: 50 },
    ),
  ),
});

const mod: RouteModule = (ctx, s) =>
  new Elysia()
    .post(
      "/v1/inboxes/:id/messages",
      async (c) => {
        // An empty body is not parsed at all: with message/rfc822 it is still an (empty) import.
        const rfc822 = c.request.headers.get("content-type")?.toLowerCase().startsWith("message/rfc822");
        const raw = c.body instanceof Uint8Array ? c.body : rfc822 && c.body === undefined ? new Uint8Array(0) : null;
        // Idempotency compares the bytes of an import by their hash, not as a JSON array of numbers.
        const keyed = raw ? { ...c, body: { raw_sha256: sha256Hex(raw) } } : c;
        return idempotent(ctx, keyed, 201, async () => {
          const { principal, project } = reqOf(c.request);
          requireScope(principal, "messages:write");
          const id = raw
            ? await s.imports.importRaw(project.id, c.params.id, raw)
            : await s.imports.compose(project.id, c.params.id, (c.body ?? {}) as Record<string, unknown>);
          return { data: await s.messages.view(await s.messages.get(project.id, id), "full", "projected") };
        });
      },
      {
        headers: SessionHeader,
        params: IdParams,
        response: { 201: One(R.Message) },
        detail: {
          summary: "Import a message (message/rfc822: stored byte for byte) or compose one (JSON); see docs/import.md",
          tags,
          requestBody: {
            required: true,
            content: {
              "message/rfc822": { schema: { type: "string", format: "binary", description: "RFC 5322 bytes, stored unchanged" } },
              "application/json": { schema: ComposeBody as any },
            },
          },
        } as any,
      },
    )
    .get(
      "/v1/inboxes/:id/messages",
      async ({ request, params, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "messages:read");
        const q = withFolder(searchQueryOf(query.q), query.folder);
        await s.inboxes.get(project.id, params.id);
        const limit = limitOf(query);
        const { rows, complete } = await whileAuthorized(s, request, principal, !!query.wait, (signal) =>
          s.search.list(
            { projectId: project.id, inboxId: params.id, query: q, cursor: query.cursor, limit, wait: query.wait, min: query.min },
            signal,
          ),
        );
        const page = toPage(rows, limit, (r) => r, complete === undefined ? {} : { complete });
        return { ...page, data: await s.messages.viewMany(page.data, query.view ?? "summary", query.headers ?? "projected") };
      },
      {
        headers: SessionHeader,
        params: IdParams,
        query: t.Object({ ...PageQuery, view: ViewQ("summary"), headers: HeadersQ, ...ListSearchQ }),
        response: {
          200: Page(R.Message, {
            complete: t.Optional(t.Boolean({ description: "with wait: false when wait ran out before min matches" })),
          }),
        },
        detail: { summary: "List messages of an inbox (newest first; q searches, see docs/search.md)", tags },
      },
    )
    .get(
      "/v1/messages",
      async ({ request, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "messages:read");
        const q = withFolder(searchQueryOf(query.q), query.folder);
        const limit = limitOf(query);
        const { rows, complete } = await whileAuthorized(s, request, principal, !!query.wait, (signal) =>
          s.search.list(
            { projectId: project.id, inboxId: null, query: q, cursor: query.cursor, limit, wait: query.wait, min: query.min },
            signal,
          ),
        );
        const page = toPage(rows, limit, (r) => r, complete === undefined ? {} : { complete });
        return { ...page, data: await s.messages.viewMany(page.data, query.view ?? "summary", query.headers ?? "projected") };
      },
      {
        headers: SessionHeader,
        query: t.Object({ ...PageQuery, view: ViewQ("summary"), headers: HeadersQ, ...ListSearchQ }),
        response: {
          200: Page(R.Message, {
            complete: t.Optional(t.Boolean({ description: "with wait: false when wait ran out before min matches" })),
          }),
        },
        detail: { summary: "List (and search) the messages of every inbox of the project, newest first", tags },
      },
    )
    .delete(
      "/v1/inboxes/:id/messages",
      async ({ request, params, query, set }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "messages:write");
        const q = withFolder(searchQueryOf(query.q), query.folder);
        await s.inboxes.get(project.id, params.id);
        await s.removal.deleteMatching(project.id, params.id, q);
        set.status = 204;
        return null;
      },
      {
        headers: SessionHeader,
        params: IdParams,
        query: t.Object({ q: SearchQ, folder: FolderQ }),
        detail: { summary: "Delete every message of an inbox, or with q the matching ones", tags },
      },
    )
    .get(
      "/v1/inboxes/:id/messages/latest",
      async ({ request, params, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "messages:read");
        const q = withFolder(searchQueryOf(query.q), query.folder);
        const pattern = s.messages.patternOf(query.pattern);
        await s.inboxes.get(project.id, params.id);
        const baseline = s.latest.baseline(query.after, query.poll_token);
        const stillThere = () => s.messages.inboxExists(project.id, params.id);
        const m = await whileAuthorized(s, request, principal, !!query.wait, (signal) =>
          q
            ? s.search.latest(project.id, params.id, q, baseline, query.wait ?? 0, signal)
            : s.latest.wait(params.id, baseline, query.wait ?? 0, stillThere, signal),
        );
        if (!m) {
          // A wait also ends when the inbox is deleted: then say so, as any later request would.
          if (query.wait) await s.inboxes.get(project.id, params.id);
          throw new DomainError("not_found", "not_found", "no message newer than the baseline arrived within the wait", {
            poll_token: baseline === null ? null : encodePollToken(baseline),
          });
        }
        return {
          data: await s.messages.view(m, query.view ?? "full", query.headers ?? "projected", pattern),
          meta: { poll_token: encodePollToken(m.id) },
        };
      },
      {
        headers: SessionHeader,
        params: IdParams,
        query: t.Object({
          wait: t.Optional(
            queryInteger("wait", { minimum: 0, maximum: 60, default: 0, description: "seconds to wait for a message, 0..60" }),
          ),
          after: t.Optional(Ulid("baseline: only a message newer than this id counts")),
          poll_token: t.Optional(
            t.String({ maxLength: 200, description: "meta.poll_token of a previous answer: wait for the next message" }),
          ),
          view: ViewQ("full"),
          headers: HeadersQ,
          q: SearchQ,
          folder: FolderQ,
          pattern: PatternQ,
        }),
        response: { 200: t.Object({ data: R.Message, meta: R.LatestMeta }) },
        detail: {
          summary: "Latest message (long poll; see docs/long-poll.md; with q only a matching message counts; pattern replaces codes)",
          tags,
        },
      },
    )
    .get(
      "/v1/messages/:id",
      async ({ request, params, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "messages:read");
        const pattern = s.messages.patternOf(query.pattern);
        const m = await s.messages.get(project.id, params.id);
        return { data: await s.messages.view(m, query.view ?? "full", query.headers ?? "projected", pattern) };
      },
      {
        headers: SessionHeader,
        params: IdParams,
        query: t.Object({ view: ViewQ("full"), headers: HeadersQ, pattern: PatternQ }),
        response: { 200: One(R.Message) },
        detail: { summary: "Show a message (pattern: your own regular expression replaces codes)", tags },
      },
    )
    .patch(
      "/v1/messages/:id",
      async ({ request, params, query, body }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "messages:write");
        const m = await s.messages.setRead(project.id, params.id, body.read);
        return { data: await s.messages.view(m, "full", query.headers ?? "projected") };
      },
      {
        headers: SessionHeader,
        params: IdParams,
        query: t.Object({ headers: HeadersQ }),
        body: t.Object({ read: t.Boolean({ description: "mark the message read (true) or unread (false)" }) }),
        response: { 200: One(R.Message) },
        detail: { summary: "Mark one message read or unread", tags },
      },
    )
    .delete(
      "/v1/messages/:id",
      async ({ request, params, set }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "messages:write");
        if ((await s.removal.deleteMessages(project.id, [params.id])) === 0) throw notFound("message");
        set.status = 204;
        return null;
      },
      { headers: SessionHeader, params: IdParams, detail: { summary: "Delete a message", tags } },
    )
    .get(
      "/v1/messages/:id/html",
      async ({ request, params, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "messages:read");
        return { data: await s.messages.html(project.id, params.id, query.remote ?? "strip") };
      },
      {
        headers: SessionHeader,
        params: IdParams,
        query: t.Object({
          remote: t.Optional(
            t.Union([t.Literal("strip"), t.Literal("allow")], {
              default: "strip",
              description: "strip replaces remote images and stylesheets (counted in remote_blocked)",
            }),
          ),
          headers: HeadersQ,
        }),
        response: { 200: One(R.HtmlBody) },
        detail: { summary: "Sanitised HTML body of a message", tags },
      },
    )
    .get(
      "/v1/messages/:id/raw",
      async ({ request, params, set }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "messages:read");
        const raw = await s.messages.rawStream(project.id, params.id);
        return bytes(
          Readable.toWeb(raw.stream) as unknown as ReadableStream<Uint8Array>,
          {
            "content-type": "message/rfc822",
            "content-disposition": `inline; filename="${params.id}.eml"`,
          },
          set,
        );
      },
      { headers: SessionHeader, params: IdParams, detail: { summary: "Raw message (message/rfc822, exact received bytes)", tags } },
    )
    .get(
      "/v1/messages/:id/attachments/:attachmentId",
      async ({ request, params, set }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "messages:read");
        const a = await s.messages.attachment(project.id, params.id, params.attachmentId);
        const body = await s.messages.attachmentStream(a);
        return bytes(
          Readable.toWeb(body) as unknown as ReadableStream<Uint8Array>,
          {
            "content-type": a.served_content_type,
            "content-disposition": contentDisposition(a.filename),
            "content-security-policy": "sandbox; default-src 'none'",
            "x-attachment-sha256": a.sha256,
          },
          set,
        );
      },
      { headers: SessionHeader, params: AttParams, detail: { summary: "Download an attachment (exact bytes)", tags } },
    )
    .get(
      "/v1/messages/:id/attachments/:attachmentId/agent",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "messages:read");
        return { data: await s.messages.attachmentAgent(project.id, params.id, params.attachmentId) };
      },
      {
        headers: SessionHeader,
        params: AttParams,
        response: { 200: One(R.AgentAttachment) },
        detail: { summary: "Attachment for AI agents (untrusted envelope)", tags },
      },
    );

export default mod;
