import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { reqOf } from "../request";
import { IdParams, PageQuery, Ulid } from "./common";
import { limitOf, toPage } from "../pagination";
import { requireScope } from "../../tenancy/auth";
import { idempotent } from "../idempotency";
import { WEBHOOK_EVENT_TYPES } from "../../events/webhook-event-types";
import * as R from "../resources";
import { One, Page } from "../resources";

const tags = ["webhooks"];
const EventType = t.Union(
  WEBHOOK_EVENT_TYPES.map((v) => t.Literal(v)),
  { description: "event type" },
);
const Fields = {
  url: t.String({ description: "absolute http(s) URL; must match the project's HTTP origins when it has any" }),
  description: t.Union([t.String({ maxLength: 500 }), t.Null()]),
  event_types: t.Array(EventType, { minItems: 1, description: "events to deliver; default [message.received]" }),
  inbox_id: t.Union([Ulid("deliver only events of this inbox"), t.Null()]),
  enabled: t.Boolean({ description: "a disabled webhook queues nothing; re-enabling resumes what was queued" }),
};

const mod: RouteModule = (ctx, s) =>
  new Elysia()
    .post(
      "/v1/webhooks",
      (c) =>
        idempotent(
          ctx,
          c,
          201,
          async () => {
            const { principal, project } = reqOf(c.request);
            requireScope(principal, "webhooks:write");
            const { row, secret } = await s.webhooks.create(project.id, c.body);
            return { data: s.webhooks.view(row, secret) };
          },
          {
            schema: R.Webhook,
            // A replay shows the webhook as it is now, never its signing secret.
            current: async (stored) => {
              const row = await s.webhooks.find(reqOf(c.request).project.id, stored.data.id);
              return row ? { data: s.webhooks.view(row) } : null;
            },
          },
        ),
      {
        body: t.Object({
          url: Fields.url,
          description: t.Optional(Fields.description),
          event_types: t.Optional(Fields.event_types),
          inbox_id: t.Optional(Fields.inbox_id),
          enabled: t.Optional(Fields.enabled),
        }),
        response: { 201: One(R.Webhook) },
        detail: { summary: "Register a webhook (the signing secret is in this answer only)", tags },
      },
    )
    .get(
      "/v1/webhooks",
      async ({ request, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "webhooks:read");
        const limit = limitOf(query);
        return toPage(await s.webhooks.list(project.id, query.cursor, limit), limit, (r) => s.webhooks.view(r));
      },
      { query: t.Object(PageQuery), response: { 200: Page(R.Webhook) }, detail: { summary: "List webhooks", tags } },
    )
    .get(
      "/v1/webhooks/:id",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "webhooks:read");
        return { data: s.webhooks.view(await s.webhooks.get(project.id, params.id)) };
      },
      { params: IdParams, response: { 200: One(R.Webhook) }, detail: { summary: "Show a webhook", tags } },
    )
    .patch(
      "/v1/webhooks/:id",
      async ({ request, params, body }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "webhooks:write");
        return { data: s.webhooks.view(await s.webhooks.update(project.id, params.id, body ?? {})) };
      },
      {
        params: IdParams,
        body: t.Optional(
          t.Object({
            url: t.Optional(Fields.url),
            description: t.Optional(Fields.description),
            event_types: t.Optional(Fields.event_types),
            inbox_id: t.Optional(Fields.inbox_id),
            enabled: t.Optional(Fields.enabled),
          }),
        ),
        response: { 200: One(R.Webhook) },
        detail: { summary: "Update a webhook", tags },
      },
    )
    .delete(
      "/v1/webhooks/:id",
      async ({ request, params, set }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "webhooks:write");
        await s.webhooks.delete(project.id, params.id);
        set.status = 204;
        return null;
      },
      { params: IdParams, detail: { summary: "Delete a webhook and its queued deliveries", tags } },
    )
    .post(
      "/v1/webhooks/:id/rotate-secret",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "webhooks:write");
        const { row, secret } = await s.webhooks.rotateSecret(project.id, params.id);
        return { data: s.webhooks.view(row, secret) };
      },
      {
        params: IdParams,
        response: { 200: One(R.Webhook) },
        detail: { summary: "New signing secret; the previous one also signs for 24 hours", tags },
      },
    )
    .get(
      "/v1/webhooks/:id/deliveries",
      async ({ request, params, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "webhooks:read");
        const limit = limitOf(query);
        const rows = await s.webhooks.listDeliveries(project.id, params.id, query.status, query.cursor, limit);
        const page = toPage(rows, limit, (d) => d);
        return { ...page, data: await Promise.all(page.data.map((d) => s.webhooks.deliveryView(d))) };
      },
      {
        params: IdParams,
        query: t.Object({
          ...PageQuery,
          status: t.Optional(t.Union([t.Literal("pending"), t.Literal("succeeded"), t.Literal("failed")])),
        }),
        response: { 200: Page(R.WebhookDelivery) },
        detail: { summary: "Deliveries of a webhook with every try (status, duration, response excerpt)", tags },
      },
    )
    .post(
      "/v1/webhooks/:id/test",
      async ({ request, params, body }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "webhooks:write");
        const d = await s.webhooks.sendTest(project.id, params.id, body?.event_type ?? "message.received");
        return { data: await s.webhooks.deliveryView(d) };
      },
      {
        params: IdParams,
        body: t.Optional(t.Object({ event_type: t.Optional(EventType) })),
        response: { 200: One(R.WebhookDelivery) },
        detail: { summary: "Send a sample event now (one try, logged with the deliveries)", tags },
      },
    )
    .post(
      "/v1/webhooks/:id/deliveries/:deliveryId/redeliver",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "webhooks:write");
        const d = await s.webhooks.redeliver(project.id, params.id, params.deliveryId);
        return { data: await s.webhooks.deliveryView(d) };
      },
      {
        params: t.Object({ id: Ulid("webhook id"), deliveryId: Ulid("delivery id") }),
        response: { 200: One(R.WebhookDelivery) },
        detail: {
          summary: "Try a finished delivery once more, now (same webhook-id, so receivers can de-duplicate); 409 while it is pending",
          tags,
        },
      },
    )
    .post(
      "/v1/webhooks/:id/pause",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "webhooks:write");
        return { data: s.webhooks.view(await s.webhooks.pause(project.id, params.id)) };
      },
      {
        params: IdParams,
        response: { 200: One(R.Webhook) },
        detail: { summary: "Pause deliveries: events keep queueing, nothing is sent until resumed", tags },
      },
    )
    .post(
      "/v1/webhooks/:id/resume",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "webhooks:write");
        return { data: s.webhooks.view(await s.webhooks.resume(project.id, params.id)) };
      },
      {
        params: IdParams,
        response: { 200: One(R.Webhook) },
        detail: { summary: "Resume deliveries (also closes an open circuit): what queued goes out now", tags },
      },
    );

export default mod;
