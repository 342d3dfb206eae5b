import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { reqOf, sessionOf } from "../request";
import { IdParams, PageQuery, Ulid, SessionHeader } from "./common";
import { limitOf, toPage } from "../pagination";
import { requireDevice, requireScope } from "../../tenancy/auth";
import { idempotent } from "../idempotency";
import * as R from "../resources";
import { One, Page } from "../resources";

const tags = ["inboxes"];

const mod: RouteModule = (ctx, s) =>
  new Elysia()
    .post(
      "/v1/inboxes",
      (c) =>
        idempotent(ctx, c, 201, async () => {
          const { principal, project } = reqOf(c.request);
          requireScope(principal, "inboxes:write");
          const session = sessionOf(c.request);
          const row = await s.inboxes.create(principal, project, c.body ?? {}, session?.sessionId ?? null);
          if (session) await s.agentSessions.recordCreated(session, "inbox", row.id);
          return { data: s.inboxes.view(row, project, c.body?.watch === true, await s.inboxes.teamUsedBytes(project.teamId)) };
        }),
      {
        headers: SessionHeader,
        body: t.Optional(
          t.Object({
            name: t.Optional(t.Union([t.String(), t.Null()], { description: "at most 100 characters" })),
            ttl_seconds: t.Optional(t.Union([t.Integer(), t.Null()], { description: "60..2592000; lifetime from now" })),
            domain_id: t.Optional(Ulid("custom domain: a persistent mailbox; requires local_part")),
            local_part: t.Optional(t.String({ description: "at most 64 characters" })),
            watch: t.Optional(t.Boolean({ description: "watch from the calling device (device sessions only)" })),
          }),
        ),
        response: { 201: One(R.Inbox) },
        detail: { summary: "Create an inbox", tags },
      },
    )
    .get(
      "/v1/inboxes",
      async ({ request, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "inboxes:read");
        const limit = limitOf(query);
        const rows = await s.inboxes.list(project.id, query.cursor, limit, query.type ?? null);
        const watched = await s.inboxes.watchedBy(
          principal,
          rows.map((r) => r.id),
        );
        const teamUsed = await s.inboxes.teamUsedBytes(project.teamId);
        return toPage(rows, limit, (r) => s.inboxes.view(r, project, watched.has(r.id), teamUsed));
      },
      {
        headers: SessionHeader,
        query: t.Object({
          ...PageQuery,
          type: t.Optional(
            t.Union([t.Literal("disposable"), t.Literal("persistent"), t.Literal("catch_all")], {
              description: "only inboxes of this type",
            }),
          ),
        }),
        response: { 200: Page(R.Inbox) },
        detail: { summary: "List inboxes", tags },
      },
    )
    .get(
      "/v1/inboxes/:id",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "inboxes:read");
        const row = await s.inboxes.get(project.id, params.id);
        const watched = (await s.inboxes.watchedBy(principal, [row.id])).has(row.id);
        return { data: s.inboxes.view(row, project, watched, await s.inboxes.teamUsedBytes(project.teamId)) };
      },
      { headers: SessionHeader, params: IdParams, response: { 200: One(R.Inbox) }, detail: { summary: "Show an inbox", tags } },
    )
    .patch(
      "/v1/inboxes/:id",
      async ({ request, params, body }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "inboxes:write");
        const row = await s.inboxes.update(project, params.id, body ?? {});
        const watched = (await s.inboxes.watchedBy(principal, [row.id])).has(row.id);
        return { data: s.inboxes.view(row, project, watched, await s.inboxes.teamUsedBytes(project.teamId)) };
      },
      {
        headers: SessionHeader,
        params: IdParams,
        body: t.Optional(
          t.Object({
            name: t.Optional(t.Union([t.String(), t.Null()], { description: "at most 100 characters" })),
            ttl_seconds: t.Optional(t.Integer({ description: ">= 1; counts from now, clamped to the plan's ceiling" })),
          }),
        ),
        response: { 200: One(R.Inbox) },
        detail: { summary: "Update an inbox (name and/or ttl_seconds)", tags },
      },
    )
    .delete(
      "/v1/inboxes/:id",
      async ({ request, params, set }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "inboxes:write");
        await s.inboxes.delete(project.id, params.id);
        set.status = 204;
        return null;
      },
      { headers: SessionHeader, params: IdParams, detail: { summary: "Delete an inbox with its messages", tags } },
    )
    .get(
      "/v1/inboxes/:id/credentials",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "inboxes:read");
        return { data: s.inboxes.credentials(await s.inboxes.get(project.id, params.id), project) };
      },
      {
        headers: SessionHeader,
        params: IdParams,
        response: { 200: One(R.InboxCredentials) },
        detail: { summary: "IMAP/POP3 credentials of an inbox", tags },
      },
    )
    .post(
      "/v1/inboxes/:id/credentials/rotate",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "inboxes:write");
        return { data: s.inboxes.credentials(await s.inboxes.rotatePassword(project.id, params.id), project) };
      },
      {
        headers: SessionHeader,
        params: IdParams,
        response: { 200: One(R.InboxCredentials) },
        detail: { summary: "Replace the inbox's IMAP/POP3 password; open IMAP and POP3 sessions logged in with it end", tags },
      },
    )
    .post(
      "/v1/inboxes/:id/mark-read",
      async ({ request, params, body }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "messages:write");
        await s.inboxes.get(project.id, params.id);
        await s.messages.markReadUpTo(project.id, params.id, body.last_read_ulid);
        return { data: { last_read_ulid: body.last_read_ulid } };
      },
      {
        headers: SessionHeader,
        params: IdParams,
        body: t.Object({ last_read_ulid: Ulid("every message up to and including this id becomes read") }),
        response: { 200: One(R.MarkReadResult) },
        detail: { summary: "Mark every message up to an id read", tags },
      },
    )
    .put(
      "/v1/inboxes/:id/watch",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireDevice(principal, "principal_not_permitted", "watching an inbox");
        await s.inboxes.get(project.id, params.id);
        await s.inboxes.watch(principal, params.id);
        return { data: { inbox_id: params.id, watched: true } };
      },
      {
        params: IdParams,
        response: { 200: One(R.WatchState) },
        detail: { summary: "Watch an inbox from this device (device sessions only)", tags },
      },
    )
    .delete(
      "/v1/inboxes/:id/watch",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireDevice(principal, "principal_not_permitted", "watching an inbox");
        await s.inboxes.get(project.id, params.id);
        await s.inboxes.unwatch(principal, params.id);
        return { data: { inbox_id: params.id, watched: false } };
      },
      { params: IdParams, response: { 200: One(R.WatchState) }, detail: { summary: "Stop watching an inbox from this device", tags } },
    );

export default mod;
