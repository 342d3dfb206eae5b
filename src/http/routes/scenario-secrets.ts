import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { reqOf } from "../request";
import { IdParams, PageQuery } from "./common";
import { limitOf, toPage } from "../pagination";
import { requireScope } from "../../tenancy/auth";
import { idempotent } from "../idempotency";
import * as R from "../resources";
import { One, Page } from "../resources";

const tags = ["scenario-secrets"];

const mod: RouteModule = (ctx, s) =>
  new Elysia()
    .get(
      "/v1/scenario-secrets",
      async ({ request, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "secrets:read");
        const limit = limitOf(query);
        return toPage(await s.scenarioSecrets.list(project.id, query.cursor, limit), limit, (r) => s.scenarioSecrets.view(r));
      },
      {
        query: t.Object(PageQuery),
        response: { 200: Page(R.ScenarioSecret) },
        detail: { summary: "List scenario secrets (metadata only)", tags },
      },
    )
    .post(
      "/v1/scenario-secrets",
      (c) =>
        idempotent(ctx, c, 201, async () => {
          const { principal, project } = reqOf(c.request);
          requireScope(principal, "secrets:write");
          return { data: s.scenarioSecrets.view(await s.scenarioSecrets.create(project.id, c.body)) };
        }),
      {
        body: t.Object({
          name: t.String({ description: "letters, digits, _ (1..64); referenced as ${secrets.NAME}" }),
          value: t.String({ description: "the secret; never returned" }),
        }),
        response: { 201: One(R.ScenarioSecret) },
        detail: { summary: "Create a scenario secret", tags },
      },
    )
    .get(
      "/v1/scenario-secrets/:id",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "secrets:read");
        return { data: s.scenarioSecrets.view(await s.scenarioSecrets.get(project.id, params.id)) };
      },
      { params: IdParams, response: { 200: One(R.ScenarioSecret) }, detail: { summary: "Show a scenario secret's metadata", tags } },
    )
    .post(
      "/v1/scenario-secrets/:id/rotate",
      async ({ request, params, body }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "secrets:write");
        return { data: s.scenarioSecrets.view(await s.scenarioSecrets.rotate(project.id, params.id, body.value)) };
      },
      {
        params: IdParams,
        body: t.Object({ value: t.String() }),
        response: { 200: One(R.ScenarioSecret) },
        detail: { summary: "Rotate a scenario secret (version + 1)", tags },
      },
    )
    .delete(
      "/v1/scenario-secrets/:id",
      async ({ request, params, set }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "secrets:write");
        await s.scenarioSecrets.delete(project.id, params.id);
        set.status = 204;
        return null;
      },
      { params: IdParams, detail: { summary: "Delete a scenario secret", tags } },
    );

export default mod;
