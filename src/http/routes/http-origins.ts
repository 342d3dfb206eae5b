import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { reqOf } from "../request";
import { IdParams, PageQuery } from "./common";
import { limitOf, toPage } from "../pagination";
import { requireScope } from "../../tenancy/auth";
import { idempotent } from "../idempotency";
import * as R from "../resources";
import { One, Page } from "../resources";

const tags = ["http-origins"];

const mod: RouteModule = (ctx, s) =>
  new Elysia()
    .get(
      "/v1/http-origins",
      async ({ request, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "origins:read");
        const limit = limitOf(query);
        return toPage(await s.origins.list(project.id, query.cursor, limit), limit, (r) => s.origins.view(r));
      },
      { query: t.Object(PageQuery), response: { 200: Page(R.HttpOrigin) }, detail: { summary: "List allowed HTTP origins", tags } },
    )
    .post(
      "/v1/http-origins",
      (c) =>
        idempotent(ctx, c, 201, async () => {
          const { principal, project } = reqOf(c.request);
          requireScope(principal, "origins:write");
          return { data: s.origins.view(await s.origins.create(project.id, c.body)) };
        }),
      {
        body: t.Object({
          origin: t.String({ description: "scheme://host[:port], e.g. https://app.example.com or https://*.example.com" }),
          description: t.Optional(t.Union([t.String(), t.Null()])),
        }),
        response: { 201: One(R.HttpOrigin) },
        detail: { summary: "Allow an HTTP origin", tags },
      },
    )
    .get(
      "/v1/http-origins/:id",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "origins:read");
        return { data: s.origins.view(await s.origins.get(project.id, params.id)) };
      },
      { params: IdParams, response: { 200: One(R.HttpOrigin) }, detail: { summary: "Show an HTTP origin", tags } },
    )
    .patch(
      "/v1/http-origins/:id",
      async ({ request, params, body }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "origins:write");
        return { data: s.origins.view(await s.origins.updateDescription(project.id, params.id, body.description)) };
      },
      {
        params: IdParams,
        body: t.Object({ description: t.Union([t.String(), t.Null()]) }),
        response: { 200: One(R.HttpOrigin) },
        detail: { summary: "Update an HTTP origin's description", tags },
      },
    )
    .delete(
      "/v1/http-origins/:id",
      async ({ request, params, set }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "origins:write");
        await s.origins.delete(project.id, params.id);
        set.status = 204;
        return null;
      },
      { params: IdParams, detail: { summary: "Remove an HTTP origin from the list", tags } },
    );

export default mod;
