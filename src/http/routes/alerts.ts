import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { reqOf } from "../request";
import { PageQuery, Ulid } from "./common";
import { limitOf, toPage } from "../pagination";
import { ALERT_CHANNELS, ALERT_TYPES, view } from "../../events/alerts";
import * as R from "../resources";
import { One, Page } from "../resources";

const tags = ["alerts"];

const mod: RouteModule = (_ctx, s) =>
  new Elysia()
    .get(
      "/v1/alerts",
      async ({ request, query }) => {
        const { principal, project } = reqOf(request);
        const limit = limitOf(query);
        const { rows, unreadCount } = await s.alerts.list(principal, project.id, query, query.cursor, limit);
        return toPage(rows, limit, view, { unread_count: unreadCount });
      },
      {
        query: t.Object({
          ...PageQuery,
          unread: t.Optional(t.Boolean({ description: "true: only unread; false: only read" })),
          channel: t.Optional(t.Union(ALERT_CHANNELS.map((c) => t.Literal(c)))),
          type: t.Optional(t.Union(ALERT_TYPES.map((c) => t.Literal(c)))),
        }),
        response: { 200: Page(R.Alert, { unread_count: t.Integer() }) },
        detail: {
          summary:
            "List the calling user's alerts in the bound project (device sessions only; an API key gets 403 principal_not_permitted)",
          tags,
        },
      },
    )
    .post(
      "/v1/alerts/mark-read",
      async ({ request, body }) => {
        const { principal, project } = reqOf(request);
        return { data: { unread_count: await s.alerts.markRead(principal, project.id, body?.ids) } };
      },
      {
        body: t.Optional(
          t.Object({
            ids: t.Optional(t.Array(Ulid(), { maxItems: 1000, description: "omit to mark every unread alert of the project read" })),
          }),
        ),
        response: { 200: One(R.UnreadCount) },
        detail: { summary: "Mark alerts read; an id that is not the caller's in this project is 422", tags },
      },
    );

export default mod;
