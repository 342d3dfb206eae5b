// User plane: /v1/me, /v1/projects, /v1/devices (no project header).
import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { principalOf, stateOf } from "../request";
import { IdParams, PageQuery } from "./common";
import { limitOf, toPage } from "../pagination";
import { requireOwnerOrAdmin } from "../../tenancy/identity";
import { idempotent } from "../idempotency";
import * as R from "../resources";
import { One, Page } from "../resources";

const tags = ["account"];

const mod: RouteModule = (ctx, s) => {
  const projectView = (
    p: { id: string; slug: string; name: string; environment: string; teamId: string; settings: Record<string, unknown> },
    role: string | null,
    teamName: string,
  ) => ({
    id: p.id,
    slug: p.slug,
    name: p.name,
    environment: p.environment,
    team: { id: p.teamId, name: teamName },
    role,
    settings: p.settings,
  });
  return new Elysia()
    .get("/v1/me", async ({ request }) => ({ data: await s.identity.me(principalOf(request).principal) }), {
      response: { 200: One(R.Me) },
      detail: { summary: "Current user", tags },
    })
    .get(
      "/v1/projects",
      async ({ request, query }) => {
        const { principal } = principalOf(request);
        const limit = limitOf(query);
        const rows = await s.identity.listProjects(principal, query.cursor, limit);
        // Every listed project is of the caller's team.
        const teamName = rows.length ? await s.identity.teamName(principal.teamId) : "";
        return toPage(rows, limit, (p) => projectView(p, principal.role, teamName));
      },
      { query: t.Object(PageQuery), response: { 200: Page(R.Project) }, detail: { summary: "List the caller's projects", tags } },
    )
    .post(
      "/v1/projects",
      (c) =>
        idempotent(ctx, c, 201, async () => {
          const { principal } = principalOf(c.request);
          requireOwnerOrAdmin(principal);
          const p = await s.identity.createProject(principal.teamId, c.body.name.trim(), c.body.slug);
          return { data: projectView(p, principal.role, await s.identity.teamName(p.teamId)) };
        }),
      {
        body: t.Object({ name: t.String({ minLength: 1, maxLength: 100 }), slug: t.Optional(t.String({ maxLength: 40 })) }),
        response: { 201: One(R.Project) },
        detail: { summary: "Create a project (owner or admin)", tags },
      },
    )
    .patch(
      "/v1/projects/:id",
      async ({ request, params, body }) => {
        const { principal } = principalOf(request);
        // Cached copies of the project go with the change, on every node (project.changed on the bus).
        const p = await s.identity.updateProject(principal, params.id, body);
        return { data: projectView(p, principal.role, await s.identity.teamName(p.teamId)) };
      },
      {
        params: IdParams,
        body: t.Object({
          name: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
          settings: t.Optional(t.Record(t.String(), t.Boolean())),
        }),
        response: { 200: One(R.Project) },
        detail: { summary: "Update a project's name or settings (owner or admin)", tags },
      },
    )
    .post(
      "/v1/devices",
      async ({ body, set, request }) => {
        const d = await s.identity.login(body.email, body.password, body.name ?? "device", stateOf(request)?.ip ?? "local");
        set.status = 201;
        return { data: d };
      },
      {
        body: t.Object({
          email: t.String({ minLength: 1, maxLength: 320 }),
          password: t.String({ minLength: 1, maxLength: 1024 }),
          name: t.Optional(t.String({ maxLength: 100 })),
        }),
        response: { 201: One(R.DeviceLogin) },
        detail: { summary: "Log in: create a device session (the token is shown once)", tags, security: [] },
      },
    )
    .get(
      "/v1/devices",
      async ({ request, query }) => {
        const { principal } = principalOf(request);
        const limit = limitOf(query);
        return toPage(await s.identity.listDevices(principal, query.cursor, limit), limit, (d) => ({
          id: d.id,
          name: d.name,
          created_at: d.createdAt,
          last_seen_at: d.lastSeenAt,
          expires_at: s.identity.deviceExpiresAt(d),
          current: d.id === principal.id,
        }));
      },
      { query: t.Object(PageQuery), response: { 200: Page(R.Device) }, detail: { summary: "List the user's device sessions", tags } },
    )
    .delete(
      "/v1/devices/:id",
      async ({ request, params, set }) => {
        await s.identity.logout(principalOf(request).principal, params.id);
        s.auth.invalidate();
        set.status = 204;
        return null;
      },
      { params: IdParams, detail: { summary: "Log out a device session", tags } },
    );
};

export default mod;
