import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { reqOf } from "../request";
import { IdParams, PageQuery, Ulid } from "./common";
import { limitOf, toPage } from "../pagination";
import { queryInteger } from "../query-integers";
import { requireScope } from "../../tenancy/auth";
import { idempotent } from "../idempotency";
import { validation } from "../../lib/errors";
import { RUN_STATUSES } from "../../automation/runs";
import * as R from "../resources";
import { One, Page } from "../resources";

const tags = ["runs"];

const mod: RouteModule = (ctx, s) =>
  new Elysia()
    .post(
      "/v1/runs",
      (c) =>
        idempotent(ctx, c, 201, async () => {
          const { principal, project } = reqOf(c.request);
          requireScope(principal, "runs:write");
          const wait = c.query.wait ?? 0;
          if (wait > ctx.config.runWaitCap) {
            throw validation(`wait is at most ${ctx.config.runWaitCap} seconds on this deployment`, {
              field: "wait",
              max: ctx.config.runWaitCap,
            });
          }
          const run = await s.runs.launch(principal, project, c.body);
          return { data: s.runs.view(await s.runs.waitFor(project.id, run.id, wait)) };
        }),
      {
        query: t.Object({
          wait: t.Optional(
            queryInteger("wait", {
              minimum: 0,
              description: "seconds to wait for the run to finish or park (0..INBOXD_RUN_WAIT_CAP, default cap 60)",
            }),
          ),
        }),
        body: t.Object({
          agent_id: Ulid("the agent whose permissions the run executes under"),
          scenario_id: Ulid("the scenario; its current (latest published) version runs"),
          // Unknown, checked by the service (automation/runs.ts resolveInputs): Elysia's normalization turns an
          // array or a string given for a t.Record into an object ("abc" → {0: "a", …}) before any check sees it.
          inputs: t.Optional(
            t.Unknown({ type: "object", additionalProperties: true, description: "the scenario's input names and their values" }),
          ),
        }),
        response: { 201: One(R.Run) },
        detail: { summary: "Launch a run of a scenario's current version", tags },
      },
    )
    .get(
      "/v1/runs",
      async ({ request, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "runs:read");
        const limit = limitOf(query);
        return toPage(await s.runs.list(project.id, query.status, query.cursor, limit), limit, (r) => s.runs.view(r));
      },
      {
        query: t.Object({
          ...PageQuery,
          status: t.Optional(t.String({ description: `one of ${RUN_STATUSES.join(", ")}; comma-separated for several` })),
        }),
        response: { 200: Page(R.Run) },
        detail: { summary: "List runs", tags },
      },
    )
    .get(
      "/v1/runs/:id",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "runs:read");
        await s.agentSessions.callsRecorded(params.id); // its count of session calls
        return { data: s.runs.view(await s.runs.get(project.id, params.id)) };
      },
      { params: IdParams, response: { 200: One(R.Run) }, detail: { summary: "Show a run", tags } },
    )
    .get(
      "/v1/runs/:id/events",
      async ({ request, params, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "runs:read");
        const limit = limitOf(query);
        await s.agentSessions.callsRecorded(params.id);
        return toPage(await s.runs.events(project.id, params.id, query.cursor, limit), limit, (e) => s.runs.eventView(e));
      },
      {
        params: IdParams,
        query: t.Object(PageQuery),
        response: { 200: Page(R.RunEvent) },
        detail: { summary: "List a run's events (ascending sequence)", tags },
      },
    )
    .post(
      "/v1/runs/:id/cancel",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "runs:write");
        return { data: s.runs.view(await s.runs.cancel(project.id, params.id)) };
      },
      {
        params: IdParams,
        response: { 200: One(R.Run) },
        detail: { summary: "Request cancellation of a run (409 when already finished)", tags },
      },
    );

export default mod;
