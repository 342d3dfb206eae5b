// Checks of the mail itself (API.md "Analysis", docs/analysis.md): the spam score from
// SpamAssassin's spamd (mail/spam-check.ts; 503 analysis_unavailable without it); the HTML's
// email-client support from caniemail's data (mail/html-check.ts).
import { Elysia } from "elysia";
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
      "/v1/messages/:id/analysis/html",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "messages:read");
        return { data: await s.analyses.html.analyse(project.id, params.id) };
      },
      {
        headers: SessionHeader,
        params: IdParams,
        response: { 200: One(R.HtmlAnalysis) },
        detail: {
          summary: "Email-client support of the HTML and CSS the message uses, from caniemail's data (embedded)",
          tags,
        },
      },
    );

export default mod;
