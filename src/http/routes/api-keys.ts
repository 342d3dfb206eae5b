import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { reqOf } from "../request";
import { IdParams, PageQuery } from "./common";
import { limitOf, toPage } from "../pagination";
import { requireScope } from "../../tenancy/auth";
import { apiKeyView } from "../../tenancy/api-keys";
import { idempotent } from "../idempotency";
import { NullableTs } from "../schemas";
import * as R from "../resources";
import { One, Page } from "../resources";

const tags = ["api-keys"];

const mod: RouteModule = (ctx, s) =>
  new Elysia()
    .get(
      "/v1/api-keys",
      async ({ request, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "keys:read");
        const limit = limitOf(query);
        return toPage(await s.apiKeys.list(project.id, query.cursor, limit), limit, (r) => apiKeyView(r));
      },
      { query: t.Object(PageQuery), response: { 200: Page(R.ApiKey) }, detail: { summary: "List API keys", tags } },
    )
    .post(
      "/v1/api-keys",
      (c) =>
        idempotent(
          ctx,
          c,
          201,
          async () => {
            const { principal, project } = reqOf(c.request);
            requireScope(principal, "keys:write");
            return { data: await s.apiKeys.create(principal, project.id, c.body) };
          },
          {
            schema: R.ApiKey,
            // A replay shows the key as it is now (revoked_at after a revoke), never its secret.
            current: async (stored) => {
              const row = await s.apiKeys.find(reqOf(c.request).project.id, stored.data.id);
              return row ? { data: apiKeyView(row) } : null;
            },
          },
        ),
      {
        body: t.Object({
          name: t.String({ maxLength: 100 }),
          scopes: t.Optional(t.Array(t.String(), { description: "subset of the caller's scopes; omitted: the caller's own set" })),
          expires_at: t.Optional(NullableTs),
        }),
        response: { 201: One(R.ApiKey) },
        detail: { summary: "Create an API key (secret shown once)", tags },
      },
    )
    .get(
      "/v1/api-keys/:id",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "keys:read");
        return { data: apiKeyView(await s.apiKeys.get(project.id, params.id)) };
      },
      { params: IdParams, response: { 200: One(R.ApiKey) }, detail: { summary: "Show an API key", tags } },
    )
    .post(
      "/v1/api-keys/:id/revoke",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "keys:write");
        return { data: await s.apiKeys.revoke(project.id, params.id) };
      },
      { params: IdParams, response: { 200: One(R.Revoked) }, detail: { summary: "Revoke an API key", tags } },
    )
    .post(
      "/v1/api-keys/:id/rotate",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "keys:write");
        return { data: await s.apiKeys.rotate(principal, project.id, params.id) };
      },
      { params: IdParams, response: { 200: One(R.ApiKey) }, detail: { summary: "Rotate a key's secret (new secret shown once)", tags } },
    );

export default mod;
