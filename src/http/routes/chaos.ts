// Fault injection per inbox (docs/chaos.md): PUT/GET/DELETE /v1/inboxes/{id}/chaos. The rules,
// their limits and the decision live in mail/chaos.ts; the SMTP listener applies them.
import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { reqOf } from "../request";
import { IdParams, SessionHeader } from "./common";
import { requireScope } from "../../tenancy/auth";
import { idempotent } from "../idempotency";
import { CHAOS_MAX_DELAY_MS, CHAOS_MAX_MESSAGE, CHAOS_MAX_RULES } from "../../mail/chaos";
import * as R from "../resources";
import { One } from "../resources";

const tags = ["inboxes"];

const Rule = t.Object({
  stage: t.Union([t.Literal("rcpt"), t.Literal("data")], {
    description: "rcpt: the RCPT TO of this inbox's address is refused; data: the whole message is refused at the end of DATA",
  }),
  code: t.Integer({ description: "SMTP reply code 400..599 (4xx: temporary, the sender retries; 5xx: permanent)" }),
  message: t.Optional(
    t.Union([t.String(), t.Null()], {
      description: `reply text, 1..${CHAOS_MAX_MESSAGE} printable ASCII characters; may start with an enhanced status code of the same class (default: a text naming inboxd chaos)`,
    }),
  ),
  rate: t.Optional(t.Number({ description: "probability 0..1 that the rule fires for one RCPT or one message (default 1)" })),
  delay_ms: t.Optional(
    t.Integer({ description: `0..${CHAOS_MAX_DELAY_MS}: the failure reply is sent this late (only when the rule fires)` }),
  ),
});

const mod: RouteModule = (ctx, s) =>
  new Elysia()
    .get(
      "/v1/inboxes/:id/chaos",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "inboxes:read");
        return { data: await s.chaos.get(project.id, params.id) };
      },
      {
        headers: SessionHeader,
        params: IdParams,
        response: { 200: One(R.ChaosRules) },
        detail: { summary: "Show an inbox's fault-injection rules", tags },
      },
    )
    .put(
      "/v1/inboxes/:id/chaos",
      (c) =>
        idempotent(ctx, c, 200, async () => {
          const { principal, project } = reqOf(c.request);
          requireScope(principal, "inboxes:write");
          return { data: await s.chaos.put(project.id, c.params.id, c.body) };
        }),
      {
        headers: SessionHeader,
        params: IdParams,
        body: t.Object({
          rules: t.Array(Rule, { description: `at most ${CHAOS_MAX_RULES}, tried in order per stage; empty: no fault injection` }),
        }),
        response: { 200: One(R.ChaosRules) },
        detail: { summary: "Set an inbox's fault-injection rules (replaces them)", tags },
      },
    )
    .delete(
      "/v1/inboxes/:id/chaos",
      async ({ request, params, set }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "inboxes:write");
        await s.chaos.clear(project.id, params.id);
        set.status = 204;
        return null;
      },
      { headers: SessionHeader, params: IdParams, detail: { summary: "Clear an inbox's fault-injection rules", tags } },
    );

export default mod;
