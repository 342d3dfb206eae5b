// Checks of the mail itself (API.md "Analysis", docs/analysis.md): the spam score from
// SpamAssassin's spamd (mail/spam-check.ts; 503 analysis_unavailable without it) and the link
// check (mail/link-check.ts).
import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { reqOf } from "../request";
import { IdParams, SessionHeader } from "./common";
import { requireScope } from "../../tenancy/auth";
import * as R from "../resources";
import { One } from "../resources";

const tags = ["messages"];

const mod: RouteModule = (_ctx, s) =>
  new Elysia()
    .get(
      "/v1/messages/:id/analysis/spam",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "messages:read");
        return { data: await s.analyses.spam.analyse(project.id, params.id) };
      },
      {
        headers: SessionHeader,
        params: IdParams,
        response: { 200: One(R.SpamAnalysis) },
        detail: {
          summary: "Spam score of a message from SpamAssassin's spamd (INBOXD_SPAMD; 503 analysis_unavailable without it)",
          tags,
        },
      },
    )
    .get(
      "/v1/messages/:id/analysis/links",
      async ({ request, params, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "messages:read");
        return { data: await s.analyses.links.analyse(project.id, params.id, query.refresh === "true") };
      },
      {
        headers: SessionHeader,
        params: IdParams,
        query: t.Object({
          refresh: t.Optional(
            t.Union([t.Literal("true"), t.Literal("false")], {
              description: "true: ask every server again (answers are reused 5 minutes)",
            }),
          ),
        }),
        response: { 200: One(R.LinkAnalysis) },
        detail: {
          summary:
            "Every link and remote image of a message requested (HEAD, then GET): status and redirects; private addresses only with INBOXD_ALLOW_INTERNAL_HTTP=on",
          tags,
        },
      },
    );

export default mod;
