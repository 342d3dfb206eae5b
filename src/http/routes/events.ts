import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { authorizationOf, reqOf } from "../request";
import { validation } from "../../lib/errors";

const mod: RouteModule = (_ctx, s) =>
  new Elysia().get(
    "/v1/events",
    async ({ request, query }) => {
      const { principal, project } = reqOf(request);
      // EventSource sends Last-Event-ID on reconnect; the query form serves clients that cannot set headers.
      const raw = request.headers.get("last-event-id") ?? query.last_event_id ?? null;
      let last: number | null = null;
      if (raw !== null && raw !== "") {
        if (!/^\d{1,15}$/.test(raw)) throw validation("Last-Event-ID must be an event id from this stream", { header: "Last-Event-ID" });
        last = Number(raw);
      }
      // Revoking, rotating or logging out the credential ends the stream (tenancy/revocation.ts).
      const revoked = new AbortController();
      const signal = AbortSignal.any([request.signal, revoked.signal]);
      const unwatch = s.revocations.watchPrincipal(principal, authorizationOf(request), () => revoked.abort());
      signal.addEventListener("abort", unwatch, { once: true });
      const body = await s.events.stream(principal, project.id, last, signal).catch((e) => {
        unwatch();
        throw e;
      });
      return new Response(body, {
        headers: {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-cache, no-transform",
          connection: "keep-alive",
          "x-accel-buffering": "no",
        },
      });
    },
    {
      query: t.Object({ last_event_id: t.Optional(t.String({ description: "same as the Last-Event-ID header" })) }),
      detail: {
        summary: "Server-Sent Events of the bound project (message.received, alerts of the caller, inbox, run and approval events)",
        tags: ["events"],
      },
    },
  );

export default mod;
