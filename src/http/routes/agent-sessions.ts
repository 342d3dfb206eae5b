import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { reqOf } from "../request";
import { IdParams, Ulid } from "./common";
import { idempotent } from "../idempotency";
import { requireScope } from "../../tenancy/auth";
import * as R from "../resources";
import { One } from "../resources";

const tags = ["agent-sessions"];

const mod: RouteModule = (ctx, s) =>
  new Elysia()
    .post(
      "/v1/agent-sessions",
      (c) =>
        idempotent(ctx, c, 201, async () => {
          const { principal, project } = reqOf(c.request);
          return { data: await s.agentSessions.open(principal, project, c.body ?? {}) };
        }),
      {
        body: t.Optional(
          t.Object({
            agent_id: t.Optional(Ulid("agent to act as; omitted: the project's Standard agent")),
            scopes: t.Optional(t.Array(t.String(), { description: "narrow the session further (default: credential ∩ agent)" })),
          }),
        ),
        response: { 201: One(R.AgentSession) },
        detail: { summary: "Open an MCP agent session (creates a run with trigger_type mcp)", tags },
      },
    )
    .post(
      "/v1/agent-sessions/:id/release",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "runs:write");
        return { data: await s.agentSessions.release(project.id, params.id) };
      },
      {
        params: IdParams,
        response: { 200: One(R.AgentSession) },
        detail: { summary: "Release an agent session (idempotent; applies its cleanup ledger)", tags },
      },
    );

export default mod;
