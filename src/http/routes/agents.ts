import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { reqOf } from "../request";
import { IdParams, PageQuery } from "./common";
import { limitOf, toPage } from "../pagination";
import { requireScope } from "../../tenancy/auth";
import { idempotent } from "../idempotency";
import * as R from "../resources";
import { One, Page } from "../resources";

const tags = ["agents"];
const Permissions = t.Array(t.String(), { description: "scopes of the API-key vocabulary; at most the caller's own" });

const mod: RouteModule = (ctx, s) =>
  new Elysia()
    .get(
      "/v1/agents",
      async ({ request, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "agents:read");
        const limit = limitOf(query);
        return toPage(await s.agents.list(project.id, query.cursor, limit), limit, (r) => s.agents.view(r));
      },
      {
        query: t.Object(PageQuery),
        response: { 200: Page(R.Agent) },
        detail: { summary: "List agents (the Standard preset always among them)", tags },
      },
    )
    .post(
      "/v1/agents",
      (c) =>
        idempotent(ctx, c, 201, async () => {
          const { principal, project } = reqOf(c.request);
          requireScope(principal, "agents:write");
          return { data: s.agents.view(await s.agents.create(principal, project.id, c.body)) };
        }),
      {
        body: t.Object({
          name: t.String({ description: "1..100 characters" }),
          description: t.Optional(t.String()),
          permissions: Permissions,
        }),
        response: { 201: One(R.Agent) },
        detail: { summary: "Create an agent", tags },
      },
    )
    .get(
      "/v1/agents/:id",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "agents:read");
        return { data: s.agents.view(await s.agents.get(project.id, params.id)) };
      },
      { params: IdParams, response: { 200: One(R.Agent) }, detail: { summary: "Show an agent", tags } },
    )
    .patch(
      "/v1/agents/:id",
      async ({ request, params, body }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "agents:write");
        return { data: s.agents.view(await s.agents.update(principal, project.id, params.id, body ?? {})) };
      },
      {
        params: IdParams,
        body: t.Optional(
          t.Object({ name: t.Optional(t.String()), description: t.Optional(t.String()), permissions: t.Optional(Permissions) }),
        ),
        response: { 200: One(R.Agent) },
        detail: { summary: "Update an agent", tags },
      },
    )
    .delete(
      "/v1/agents/:id",
      async ({ request, params, set }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "agents:write");
        await s.agents.revoke(project.id, params.id);
        set.status = 204;
        return null;
      },
      { params: IdParams, detail: { summary: "Revoke an agent (the Standard agent cannot be revoked)", tags } },
    );

export default mod;
