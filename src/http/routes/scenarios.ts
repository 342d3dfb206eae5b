import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { reqOf } from "../request";
import { IdParams, PageQuery, Ulid } from "./common";
import { limitOf, toPage } from "../pagination";
import { requireScope } from "../../tenancy/auth";
import { idempotent } from "../idempotency";
import { parseIfMatch } from "../../automation/scenarios";
import { definitionJsonSchema } from "../../automation/scenario-schema";
import * as R from "../resources";
import { One, Page } from "../resources";

const tags = ["scenarios"];
const Definition = t.Unknown({ description: "scenario definition (GET /v1/scenarios/schema; docs/scenarios.md)" });

const mod: RouteModule = (ctx, s) =>
  new Elysia()
    .get(
      "/v1/scenarios/schema",
      ({ request }) => {
        const { principal } = reqOf(request);
        requireScope(principal, "scenarios:read");
        return { data: definitionJsonSchema() };
      },
      {
        response: { 200: t.Object({ data: t.Record(t.String(), t.Unknown(), { description: "JSON Schema of a scenario definition" }) }) },
        detail: { summary: "JSON Schema of the scenario definition language", tags },
      },
    )
    .get(
      "/v1/scenarios",
      async ({ request, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "scenarios:read");
        const limit = limitOf(query);
        const page = toPage(await s.scenarios.list(project.id, query.cursor, limit), limit, (r) => r);
        return { ...page, data: await Promise.all(page.data.map((r) => s.scenarios.view(r))) };
      },
      { query: t.Object(PageQuery), response: { 200: Page(R.Scenario) }, detail: { summary: "List scenarios", tags } },
    )
    .post(
      "/v1/scenarios",
      (c) =>
        idempotent(ctx, c, 201, async () => {
          const { principal, project } = reqOf(c.request);
          requireScope(principal, "scenarios:write");
          return { data: await s.scenarios.view(await s.scenarios.create(project.id, c.body)) };
        }),
      {
        body: t.Object({ name: t.String(), description: t.Optional(t.String()), draft_definition: t.Optional(Definition) }),
        response: { 201: One(R.Scenario) },
        detail: { summary: "Create a scenario (draft_revision 1)", tags },
      },
    )
    .get(
      "/v1/scenarios/:id",
      async ({ request, params, set }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "scenarios:read");
        const row = await s.scenarios.get(project.id, params.id);
        set.headers.etag = `"${row.draft_revision}"`;
        return { data: await s.scenarios.view(row) };
      },
      { params: IdParams, response: { 200: One(R.Scenario) }, detail: { summary: "Show a scenario", tags } },
    )
    .patch(
      "/v1/scenarios/:id",
      async ({ request, params, body, set }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "scenarios:write");
        const row = await s.scenarios.update(project.id, params.id, parseIfMatch(request.headers.get("if-match")), body ?? {});
        set.headers.etag = `"${row.draft_revision}"`;
        return { data: await s.scenarios.view(row) };
      },
      {
        params: IdParams,
        headers: t.Object({
          "if-match": t.Optional(t.String({ description: "the draft_revision being edited (required; 428 without, 412 on mismatch)" })),
        }),
        body: t.Optional(
          t.Object({ name: t.Optional(t.String()), description: t.Optional(t.String()), draft_definition: t.Optional(Definition) }),
        ),
        response: { 200: One(R.Scenario) },
        detail: { summary: "Update a scenario draft (If-Match: draft_revision)", tags },
      },
    )
    .delete(
      "/v1/scenarios/:id",
      async ({ request, params, set }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "scenarios:write");
        await s.scenarios.delete(project.id, params.id);
        set.status = 204;
        return null;
      },
      { params: IdParams, detail: { summary: "Delete a scenario", tags } },
    )
    .post(
      "/v1/scenarios/:id/validate",
      async ({ request, params, body }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "scenarios:read");
        const row = await s.scenarios.get(project.id, params.id);
        const def = body?.definition !== undefined ? body.definition : JSON.parse(row.draft_definition);
        return { data: await s.scenarios.analyze(project.id, def) };
      },
      {
        params: IdParams,
        body: t.Optional(t.Object({ definition: t.Optional(t.Unknown({ description: "a definition to check; omitted: the draft" })) })),
        response: { 200: One(R.ValidationResult) },
        detail: { summary: "Validate a definition (or the draft)", tags },
      },
    )
    .post(
      "/v1/scenarios/:id/publish",
      async ({ request, params, set }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "scenarios:write");
        const v = await s.scenarios.publish(project.id, params.id);
        set.status = 201;
        return { data: s.scenarios.versionView(v) };
      },
      {
        params: IdParams,
        response: { 201: One(R.ScenarioVersion) },
        detail: { summary: "Publish the draft as the next version (422 while invalid)", tags },
      },
    )
    .get(
      "/v1/scenarios/:id/versions",
      async ({ request, params, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "scenarios:read");
        const limit = limitOf(query);
        return toPage(await s.scenarios.versions(project.id, params.id, query.cursor, limit), limit, (v) => s.scenarios.versionView(v));
      },
      {
        params: IdParams,
        query: t.Object(PageQuery),
        response: { 200: Page(R.ScenarioVersion) },
        detail: { summary: "List a scenario's versions", tags },
      },
    )
    .get(
      "/v1/scenarios/:id/versions/:version",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "scenarios:read");
        return { data: s.scenarios.versionView(await s.scenarios.version(project.id, params.id, Number(params.version))) };
      },
      {
        params: t.Object({ id: Ulid(), version: t.String({ pattern: "^[1-9][0-9]{0,8}$", description: "integer >= 1" }) }),
        response: { 200: One(R.ScenarioVersion) },
        detail: { summary: "Show a scenario version by number", tags },
      },
    );

export default mod;
