// Checks of the mail itself (API.md "Analysis", docs/analysis.md): the spam score from
// SpamAssassin's spamd (mail/spam-check.ts; 503 analysis_unavailable without it); SPF, DKIM,
// DMARC and ARC as checked at receipt (mail/auth-check.ts).
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
      "/v1/messages/:id/analysis/auth",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "messages:read");
        return { data: await s.analyses.auth.analyse(project.id, params.id) };
      },
      {
        headers: SessionHeader,
        params: IdParams,
        response: { 200: One(R.AuthAnalysis) },
        detail: {
          summary: "SPF, DKIM, DMARC and ARC of a message as checked at receipt (resolvers: INBOXD_DNS_SERVERS)",
          tags,
        },
      },
    );

export default mod;
