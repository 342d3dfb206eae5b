// Checks of the mail itself (API.md "Analysis", docs/analysis.md), one GET each under
// /v1/messages/{id}/analysis/: the spam score from SpamAssassin's spamd (mail/spam-check.ts; 503
// analysis_unavailable without it); the HTML's email-client support from caniemail's data
// (mail/html-check.ts); SPF, DKIM, DMARC and ARC as checked at receipt (mail/auth-check.ts); the
// link check (mail/link-check.ts), which alone takes a parameter.
import { Elysia, t, type TSchema } from "elysia";
import type { RouteModule } from ".";
import { reqOf } from "../request";
import { IdParams, SessionHeader } from "./common";
import { requireScope } from "../../tenancy/auth";
import * as R from "../resources";
import { One } from "../resources";
import { CHECKS, type CheckName } from "../../mail/analyses";

const ANALYSES: Array<{ check: CheckName; schema: TSchema; summary: string }> = [
  {
    check: "spam",
    schema: R.SpamAnalysis,
    summary: "Spam score of a message from SpamAssassin's spamd (INBOXD_SPAMD; 503 analysis_unavailable without it)",
  },
  {
    check: "html",
    schema: R.HtmlAnalysis,
    summary: "Email-client support of the HTML and CSS the message uses, from caniemail's data (embedded)",
  },
  {
    check: "auth",
    schema: R.AuthAnalysis,
    summary: "SPF, DKIM, DMARC and ARC of a message as checked at receipt (resolvers: INBOXD_DNS_SERVERS)",
  },
];

const mod: RouteModule = (_ctx, s) => {
  let app = new Elysia();
  for (const a of ANALYSES) {
    app = app.get(
      `/v1/messages/:id/analysis/${a.check}`,
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "messages:read");
        return { data: await CHECKS[a.check](s.analyses, project.id, params.id) };
      },
      { headers: SessionHeader, params: IdParams, response: { 200: One(a.schema) }, detail: { summary: a.summary, tags: ["messages"] } },
    ) as unknown as Elysia;
  }
  return app.get(
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
          t.Union([t.Literal("true"), t.Literal("false")], { description: "true: ask every server again (answers are reused 5 minutes)" }),
        ),
      }),
      response: { 200: One(R.LinkAnalysis) },
      detail: {
        summary:
          "Every link and remote image of a message requested (HEAD, then GET): status and redirects; private addresses only with INBOXD_ALLOW_INTERNAL_HTTP=on",
        tags: ["messages"],
      },
    },
  );
};

export default mod;
