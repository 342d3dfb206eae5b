import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { reqOf } from "../request";
import { IdParams, PageQuery, Ulid } from "./common";
import { limitOf, toPage } from "../pagination";
import { requireScope } from "../../tenancy/auth";
import { idempotent } from "../idempotency";
import { Collection, NullableTs, Ts } from "../schemas";

const tags = ["domains"];

const DomainRecord = t.Object({
  key: t.String({ description: "mx, spf, dkim, dmarc or ownership" }),
  type: t.String({ description: "MX or TXT" }),
  host: t.String({ description: "fully-qualified name to publish the record at" }),
  value: t.String(),
  priority: t.Integer({ description: "10 for MX, 0 for TXT" }),
  required: t.Boolean({ description: "whether verification waits for this record" }),
  status: t.String({ description: "pending, valid, invalid, missing, error or skipped" }),
});

const Domain = t.Object(
  {
    id: t.String(),
    domain: t.String(),
    mode: t.String({ description: "always 'normal'" }),
    status: t.String({ description: "pending, verified or failed" }),
    verified_at: NullableTs,
    last_checked_at: NullableTs,
    failure_reason: t.Union([t.String(), t.Null()], { description: "why the last verification failed" }),
    dkim: t.Object({ selector: t.String() }),
    project: t.Object({ id: t.String(), slug: t.String() }),
    records: t.Array(DomainRecord),
    catch_all_inbox_id: t.Union([t.String(), t.Null()], { description: "inbox storing mail for unknown local parts" }),
    created_at: Ts,
  },
  { title: "Domain" },
);
const One = t.Object({ data: Domain });

const mod: RouteModule = (ctx, s) =>
  new Elysia()
    .post(
      "/v1/domains",
      (c) =>
        idempotent(ctx, c, 201, async () => {
          const { principal, project } = reqOf(c.request);
          requireScope(principal, "domains:write");
          const row = await s.domains.create(project, c.body);
          return { data: s.domains.view(row, project) };
        }),
      {
        body: t.Object({
          domain: t.String({ maxLength: 300, description: "e.g. mail.example.com; lower-cased, trailing dot stripped, IDN to punycode" }),
          catch_all_inbox_id: t.Optional(t.Union([Ulid("inbox of this project that stores mail for unknown local parts"), t.Null()])),
        }),
        response: { 201: One },
        detail: { summary: "Create a custom domain (answers the DNS records to publish)", tags },
      },
    )
    .get(
      "/v1/domains",
      async ({ request, query }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "domains:read");
        const limit = limitOf(query);
        return toPage(await s.domains.list(project.id, query.cursor, limit), limit, (r) => s.domains.view(r, project));
      },
      { query: t.Object(PageQuery), response: { 200: Collection(Domain) }, detail: { summary: "List custom domains", tags } },
    )
    .get(
      "/v1/domains/:id",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "domains:read");
        return { data: s.domains.view(await s.domains.get(project.id, params.id), project) };
      },
      { params: IdParams, response: { 200: One }, detail: { summary: "Show a custom domain", tags } },
    )
    .post(
      "/v1/domains/:id/verify",
      async ({ request, params }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "domains:write");
        return { data: s.domains.view(await s.domains.verify(project.id, params.id), project) };
      },
      {
        params: IdParams,
        response: { 200: One },
        detail: { summary: "Look the DNS records up now and update the domain's status", tags },
      },
    )
    .post(
      "/v1/domains/:id/catch-all",
      async ({ request, params, body }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "domains:write");
        return { data: s.domains.view(await s.domains.setCatchAll(project.id, params.id, body.inbox_id), project) };
      },
      {
        params: IdParams,
        body: t.Object({
          inbox_id: t.Union([Ulid("inbox of this project that stores mail for unknown local parts"), t.Null()], {
            description: "null turns the catch-all off",
          }),
        }),
        response: { 200: One },
        detail: { summary: "Set or clear the domain's catch-all inbox", tags },
      },
    )
    .delete(
      "/v1/domains/:id",
      async ({ request, params, query, set }) => {
        const { principal, project } = reqOf(request);
        requireScope(principal, "domains:write");
        await s.domains.remove(project.id, params.id, query.force === true);
        set.status = 204;
        return null;
      },
      {
        params: IdParams,
        query: t.Object({
          force: t.Optional(
            t.Boolean({ description: "also delete the persistent mailboxes on this domain (otherwise 409 domain_in_use)" }),
          ),
        }),
        detail: { summary: "Delete a custom domain", tags },
      },
    );

export default mod;
