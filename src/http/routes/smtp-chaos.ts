// Fault injection at connect (docs/chaos.md "Connection faults"): PUT/GET/DELETE /v1/smtp/chaos,
// the instance's SMTP listeners' rules, for the instance's operator only. The rules, their limits
// and the decision live in mail/smtp-chaos.ts (its checks shared with mail/chaos.ts).
import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { reqOf } from "../request";
import { SessionHeader } from "./common";
import { idempotent } from "../idempotency";
import { CHAOS_MAX_DELAY_MS, CHAOS_MAX_MESSAGE, CHAOS_MAX_RULES } from "../../mail/chaos";
import * as R from "../resources";
import { One } from "../resources";

const tags = ["smtp"];

// stage and code are checked by the service, not here, so that every refusal names its field
// (details.field "rules[0].code") the way the service's other checks do.
const Rule = t.Object({
  stage: t.String({ description: '"connect" (the only stage): when a client connects, before the greeting' }),
  code: t.Optional(
    t.Union([t.Integer(), t.Null()], {
      description:
        "421: refused, the connection is closed (a sender retries later); 554: no service, every command but QUIT gets 503; null or absent: the usual 220, delay_ms late",
    }),
  ),
  message: t.Optional(
    t.Union([t.String(), t.Null()], {
      description: `reply text of a 421 or 554, 1..${CHAOS_MAX_MESSAGE} printable ASCII characters; may start with an enhanced status code of the same class (default: a text naming inboxd chaos)`,
    }),
  ),
  rate: t.Optional(t.Number({ description: "probability 0..1 that the rule fires for one connection (default 1)" })),
  delay_ms: t.Optional(
    t.Integer({ description: `0..${CHAOS_MAX_DELAY_MS}: the greeting or refusal is sent this late; above 0 when there is no code` }),
  ),
});

const mod: RouteModule = (ctx, s) =>
  new Elysia()
    .get("/v1/smtp/chaos", async ({ request }) => ({ data: await s.smtpChaos.get(reqOf(request).principal) }), {
      headers: SessionHeader,
      response: { 200: One(R.SmtpChaosRules) },
      detail: { summary: "Show the SMTP listeners' connect-time fault-injection rules (instance operator)", tags },
    })
    .put(
      "/v1/smtp/chaos",
      (c) => idempotent(ctx, c, 200, async () => ({ data: await s.smtpChaos.put(reqOf(c.request).principal, c.body) })),
      {
        headers: SessionHeader,
        body: t.Object({
          rules: t.Array(Rule, { description: `at most ${CHAOS_MAX_RULES}, tried in order; empty: greetings as usual` }),
        }),
        response: { 200: One(R.SmtpChaosRules) },
        detail: { summary: "Set the SMTP listeners' connect-time fault-injection rules (replaces them; instance operator)", tags },
      },
    )
    .delete(
      "/v1/smtp/chaos",
      async ({ request, set }) => {
        await s.smtpChaos.clear(reqOf(request).principal);
        set.status = 204;
        return null;
      },
      {
        headers: SessionHeader,
        detail: { summary: "Clear the SMTP listeners' connect-time fault-injection rules (instance operator)", tags },
      },
    );

export default mod;
