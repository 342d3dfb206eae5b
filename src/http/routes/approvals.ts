import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { reqOf } from "../request";
import { IdParams, PageQuery } from "./common";
import { toPage, limitOf } from "../pagination";
import * as R from "../resources";
import { One, Page } from "../resources";

const tags = ["approvals"];

const mod: RouteModule = (_ctx, s) =>
  new Elysia()
    .get(
      "/v1/approvals",
      async ({ request, query }) => {
        const { principal, project } = reqOf(request);
        const limit = limitOf(query);
        const rows = await s.approvals.list(principal, project, query.status, query.cursor, limit);
        return toPage(
          rows.map((r) => ({ ...r, id: r.ulid })),
          limit,
          ({ id: _id, ...r }) => r,
        );
      },
      {
        query: t.Object({ ...PageQuery, status: t.Optional(t.String({ description: "pending, approved, rejected or expired" })) }),
        response: { 200: Page(R.Approval) },
        detail: { summary: "List approvals (device session of a team owner or admin)", tags },
      },
    )
    .post(
      "/v1/approvals/:id/approve",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        return { data: await s.approvals.approve(principal, project, params.id) };
      },
      {
        params: IdParams,
        response: { 200: One(R.Approval) },
        detail: { summary: "Approve a pending approval; the parked run resumes at the same step", tags },
      },
    )
    .post(
      "/v1/approvals/:id/reject",
      async ({ request, params, body }) => {
        const { principal, project } = reqOf(request);
        return { data: await s.approvals.reject(principal, project, params.id, body?.reason ?? null) };
      },
      {
        params: IdParams,
        body: t.Optional(t.Object({ reason: t.Optional(t.Union([t.String(), t.Null()], { description: "at most 500 characters" })) })),
        response: { 200: One(R.Approval) },
        detail: { summary: "Reject a pending approval; the parked run fails", tags },
      },
    );

export default mod;
