// Response schemas of every JSON resource, in TypeBox. Routes declare them as `response:`, so Elysia
// checks each answer against them and the OpenAPI document is generated from the same objects
// (they cannot drift). Elysia's normalizer drops properties a schema does not name; objects whose
// inner shape the contract leaves open (run steps, definitions, usage maps…) are declared with
// `additionalProperties: true` so nothing the services answer is ever lost.
import { t, type TSchema } from "elysia";
import { NullableTs, Ts, ULID_PATTERN } from "./schemas";

const Id = t.String({ pattern: ULID_PATTERN, examples: ["01JH8Z6Q2V3W4X5Y6Z7A8B9C0D"] });
const NullableString = (description?: string) => t.Union([t.String(), t.Null()], { description });
/** An object whose further fields are open (the contract leaves them unspecified). */
const Open = <P extends Record<string, TSchema>>(props: P, title?: string) => t.Object(props, { additionalProperties: true, title });
const AnyObject = (description?: string) => t.Record(t.String(), t.Unknown(), { description });

/**
 * A secret value (a key, a signing secret, a token, a password): shown once, never stored in
 * plaintext. The x-secret mark is what the idempotency cache strips (http/idempotency.ts) and what
 * the at-rest audit test (test/http/secrets-at-rest.test.ts) enumerates from the OpenAPI document.
 */
export const Secret = (description: string, examples?: string[]) => t.String({ description, examples, "x-secret": true });

/** Names of the x-secret fields of an object schema. */
export function secretFieldsOf(schema: TSchema): string[] {
  const props = (schema as { properties?: Record<string, TSchema & { "x-secret"?: boolean }> }).properties ?? {};
  return Object.entries(props)
    .filter(([, p]) => p["x-secret"] === true)
    .map(([k]) => k);
}

/** {data: X} */
export const One = <T extends TSchema>(item: T) => t.Object({ data: item });
/** {data: [X], meta: {limit, has_more, …}, links: {next}} */
export const Page = <T extends TSchema>(item: T, meta: Record<string, TSchema> = {}) =>
  t.Object({
    data: t.Array(item),
    meta: t.Object({ limit: t.Integer({ examples: [50] }), has_more: t.Boolean(), ...meta }),
    links: t.Object({
      next: t.Union([t.String(), t.Null()], { description: "pass back as ?cursor= for the next page; null on the last" }),
    }),
  });

// -- account ----------------------------------------------------------------------------------
const TeamRef = t.Object({ id: Id, name: t.String() });
export const Me = t.Object(
  { id: Id, email: t.String({ examples: ["admin@localhost"] }), name: t.String(), team: TeamRef, role: t.String({ examples: ["owner"] }) },
  { title: "Me" },
);
export const Project = t.Object(
  {
    id: Id,
    slug: t.String({ examples: ["default"] }),
    name: t.String(),
    environment: t.String({ examples: ["live"] }),
    team: TeamRef,
    role: NullableString("the caller's role; null for an API key"),
    settings: t.Record(t.String(), t.Unknown(), { description: 'e.g. {"api_keys.agent_access_enabled": true}' }),
  },
  { title: "Project" },
);
export const Device = t.Object(
  {
    id: Id,
    name: t.String(),
    created_at: Ts,
    last_seen_at: NullableTs,
    expires_at: t.String({
      format: "date-time",
      description:
        "when the session ends unless used again: the earlier of last use + INBOXD_DEVICE_SESSION_IDLE and log-in + INBOXD_DEVICE_SESSION_MAX",
    }),
    current: t.Boolean(),
  },
  { title: "Device" },
);
export const DeviceLogin = t.Object(
  {
    id: Id,
    name: t.String(),
    token: Secret("the session token (isd_…), shown only here"),
    created_at: Ts,
    last_seen_at: NullableTs,
    expires_at: t.String({ format: "date-time", description: "when the session ends unless used again (sliding; see GET /v1/devices)" }),
  },
  { title: "DeviceLogin" },
);

// -- API keys ---------------------------------------------------------------------------------
export const ApiKey = t.Object(
  {
    id: Id,
    name: t.String({ examples: ["ci"] }),
    environment: t.String({ examples: ["live"] }),
    last_four: t.String(),
    scopes: t.Array(t.String(), { examples: [["inboxes:read", "messages:read"]] }),
    last_used_at: NullableTs,
    expires_at: NullableTs,
    revoked_at: NullableTs,
    created_at: Ts,
    secret: t.Optional(
      Secret("only in the answers of create and rotate (an Idempotency-Key replay of the create leaves it out)", ["isk_live_…"]),
    ),
  },
  { title: "ApiKey" },
);
export const Revoked = t.Object({ revoked: t.Boolean() });

// -- alerts -----------------------------------------------------------------------------------
export const Alert = t.Object(
  {
    id: Id,
    type: t.String({ description: "message.arrived, inbox.expiring, inbox.quota or team.quota" }),
    channel: t.String({ description: "arrivals or failures" }),
    severity: t.String({ examples: ["success"] }),
    title: t.String(),
    detail: t.String(),
    resource_type: t.String({ examples: ["inbox"] }),
    resource_id: t.String(),
    inbox: t.Object({ id: NullableString(), address: NullableString() }),
    count: t.Integer(),
    occurred_at: Ts,
    read_at: NullableTs,
  },
  { title: "Alert" },
);
export const UnreadCount = t.Object({ unread_count: t.Integer() });

// -- inboxes ----------------------------------------------------------------------------------
const HostPort = t.Object({ host: t.String({ examples: ["localhost"] }), port: t.Integer({ examples: [9993] }) });
const Storage = t.Object({
  used_bytes: t.Integer(),
  quota_bytes: t.Integer({ minimum: 1 }),
  state: t.String({ description: "normal, warning or full", examples: ["normal"] }),
});
export const Inbox = t.Object(
  {
    id: Id,
    address: t.String({ examples: ["quiet-otter-42@default.inboxd.test"] }),
    name: NullableString(),
    type: t.String({ description: "disposable, persistent or catch_all", examples: ["disposable"] }),
    status: t.String({ examples: ["active"] }),
    message_count: t.Integer(),
    unread_count: t.Integer(),
    pop3: HostPort,
    imap: HostPort,
    retention_days: t.Integer(),
    expires_at: t.Union([Ts, t.Null()], { description: "null for a persistent mailbox" }),
    created_at: Ts,
    storage: t.Object({ inbox: Storage, team: Storage }),
    watched: t.Boolean({ description: "whether the calling device watches it" }),
    domain_id: NullableString("custom domain of a persistent mailbox"),
  },
  { title: "Inbox" },
);
export const InboxCredentials = t.Object(
  { username: t.String(), password: Secret("the inbox's IMAP/POP3 password"), pop3: HostPort, imap: HostPort },
  { title: "InboxCredentials" },
);
export const WatchState = t.Object({ inbox_id: Id, watched: t.Boolean() });
export const MarkReadResult = t.Object({ last_read_ulid: Id });
export const ChaosRules = t.Object(
  {
    inbox_id: Id,
    rules: t.Array(
      t.Object({
        stage: t.String({ description: "rcpt or data" }),
        code: t.Integer({ examples: [451] }),
        message: NullableString(),
        rate: t.Number(),
        delay_ms: t.Integer(),
        reply: t.String({ description: "the SMTP reply a sender sees when the rule fires" }),
      }),
    ),
  },
  { title: "ChaosRules" },
);
export const SmtpChaosRules = t.Object(
  {
    rules: t.Array(
      t.Object({
        stage: t.Literal("connect"),
        code: t.Union([t.Literal(421), t.Literal(554), t.Null()], { description: "null: a slow greeting (the 220, late)" }),
        message: NullableString(),
        rate: t.Number(),
        delay_ms: t.Integer(),
        reply: t.String({ description: "the line a client sees when the rule fires (for a slow greeting, the greeting)" }),
      }),
    ),
  },
  { title: "SmtpChaosRules" },
);

// -- messages ---------------------------------------------------------------------------------
const Address = t.Object({ email: t.String({ examples: ["shop@example.com"] }), name: t.String({ examples: ["Shop"] }) });
const Header = t.Object({ name: t.String(), value: t.String() });
const Link = t.Object({ url: t.String({ examples: ["https://example.com/verify?t=abc"] }), text: t.String() });
const AttachmentMeta = t.Object({
  id: Id,
  filename: t.Optional(t.String({ description: "absent in the agent view (inside untrusted.attachment_filenames)" })),
  declared_content_type: t.String(),
  served_content_type: t.String(),
  disposition: NullableString(),
  content_id: NullableString(),
  size_bytes: t.Integer(),
  sha256: t.String({ description: "lowercase hex of the exact bytes" }),
});
export const Message = t.Object(
  {
    id: Id,
    inbox_id: Id,
    folder: t.Optional(
      t.String({
        description:
          "full and agent views: the IMAP mailbox it is filed in: INBOX for mail received (SMTP, import), or Sent, Trash… (docs/imap.md)",
        examples: ["INBOX"],
      }),
    ),
    from: Address,
    subject: t.String({ examples: ["Your verification code"] }),
    preview: t.String(),
    codes: t.Array(t.String(), { description: "verification codes found (or the matches of ?pattern=)", examples: [["123456"]] }),
    links_count: t.Integer(),
    attachment_count: t.Integer(),
    has_text: t.Boolean(),
    has_html: t.Boolean(),
    raw_available: t.Boolean(),
    size_bytes: t.Integer(),
    logical_size_bytes: t.Integer(),
    received_at: Ts,
    expires_at: NullableTs,
    read: t.Boolean(),
    headers: t.Array(Header, { description: "projected subset, or every header with ?headers=full" }),
    headers_truncated: t.Boolean(),
    // view=full
    to: t.Optional(t.Array(t.Unknown(), { description: "full view: To addresses" })),
    cc: t.Optional(t.Array(t.Unknown(), { description: "full view: Cc addresses" })),
    text: t.Optional(NullableString("full view: the text body")),
    links: t.Optional(t.Array(Link, { description: "full view: links with their anchor text" })),
    attachments: t.Optional(t.Array(AttachmentMeta, { description: "full and agent views" })),
    message_id: t.Optional(NullableString("full view: Message-ID header")),
    sent_at: t.Optional(NullableString("full view: Date header")),
    envelope: t.Optional(
      t.Object({ mail_from: NullableString(), rcpt_to: t.Array(t.String()) }, { description: "full view: the SMTP envelope" }),
    ),
    parse_error: t.Optional(NullableString("full view")),
    // view=agent
    untrusted: t.Optional(
      Open(
        {
          provenance: t.String({ examples: ["third-party-email"] }),
          nonce: t.String(),
          subject: t.String(),
          text: t.String(),
          truncated: t.Boolean(),
          links: t.Array(Link),
          attachment_filenames: t.Array(t.String()),
        },
        "UntrustedContent",
      ),
    ),
  },
  {
    title: "Message",
    description: "summary view: the common fields; full view adds to, cc, text, links, attachments, envelope…; agent view adds untrusted",
  },
);
export const LatestMeta = t.Object({ poll_token: t.String({ description: "pass back as ?poll_token= to wait for the next message" }) });
export const HtmlBody = Open(
  { html: t.String(), remote_blocked: t.Integer(), truncated: t.Boolean(), sanitizer_version: t.Integer() },
  "HtmlBody",
);
export const SpamAnalysis = t.Object(
  {
    score: t.Number({ description: "SpamAssassin's total score" }),
    threshold: t.Number({ description: "the score from which spamd calls a message spam (its required_score)" }),
    is_spam: t.Boolean(),
    rules: t.Array(
      t.Object({
        name: t.String({ examples: ["MISSING_DATE"] }),
        score: t.Number(),
        description: t.String({ examples: ["Missing Date: header"] }),
      }),
      { description: "every rule that fired, in spamd's order" },
    ),
  },
  { title: "SpamAnalysis" },
);
const AuthResult = t.String({
  description: "the result keyword of RFC 8601: pass, fail, softfail, neutral, none, temperror, permerror, policy",
  examples: ["pass"],
});
const AuthComment = t.Union([t.String(), t.Null()]);
export const AuthAnalysis = t.Object(
  {
    verdict: t.Union([t.Literal("pass"), t.Literal("fail"), t.Literal("none")], {
      description:
        "fail: SPF fail/softfail/permerror, a DKIM fail/permerror, DMARC fail/permerror or ARC fail; pass: none of those and DMARC, SPF or a DKIM signature passed; none: nothing to judge (what auth: searches)",
    }),
    spf: t.Object({ result: AuthResult, domain: t.Union([t.String(), t.Null()]), comment: AuthComment }),
    dkim: t.Array(
      t.Object({
        domain: t.String(),
        selector: t.String(),
        result: AuthResult,
        comment: AuthComment,
        aligned: t.Boolean({ description: "the signing domain aligns with the From domain (DMARC)" }),
      }),
      { description: "one entry per DKIM-Signature header; empty when the message is not signed" },
    ),
    dmarc: t.Object({
      result: AuthResult,
      domain: t.Union([t.String(), t.Null()]),
      policy: t.Union([t.String(), t.Null()], { description: "the published policy: none, quarantine or reject" }),
      comment: AuthComment,
    }),
    arc: t.Object({ result: AuthResult, comment: AuthComment }),
    client_ip: t.Union([t.String(), t.Null()], { description: "the SMTP client checked by SPF; null for an imported message" }),
    helo: t.Union([t.String(), t.Null()]),
    headers: t.String({ description: "Received-SPF and Authentication-Results as a receiving server would add them" }),
    checked_at: t.String({ format: "date-time" }),
  },
  { title: "AuthAnalysis" },
);
const SupportScore = t.Object(
  {
    supported: t.Number({ description: "percent of the results that are full support" }),
    partial: t.Number({ description: "percent that are partial support" }),
    unsupported: t.Number({ description: "percent that are no support" }),
  },
  { title: "SupportScore", description: "over every (feature used, client) pair with a known caniemail result" },
);
export const HtmlAnalysis = t.Object(
  {
    has_html: t.Boolean(),
    score: t.Union([SupportScore, t.Null()], { description: "null when the message has no HTML" }),
    clients_checked: t.Integer({ description: "email clients (family.platform) in caniemail's data" }),
    features_checked: t.Integer({ description: "distinct caniemail features the HTML uses" }),
    data_updated: t.String({ description: "date of the embedded caniemail data", examples: ["2026-05-13"] }),
    note: t.Optional(t.String()),
    warnings: t.Array(
      t.Object({
        feature: t.String({ description: "caniemail's slug", examples: ["css-display-flex"] }),
        title: t.String({ examples: ["display:flex"] }),
        category: t.String({ examples: ["css", "html", "image", "others"] }),
        url: t.String({ description: "the feature's caniemail.com page" }),
        score: SupportScore,
        clients: t.Array(
          t.Object({
            client: t.String({ examples: ["outlook.windows"] }),
            name: t.String({ examples: ["Outlook Windows"] }),
            version: t.String({ description: "the version or test date of the result", examples: ["2019"] }),
            support: t.Union([t.Literal("partial"), t.Literal("no")]),
            notes: t.Array(t.String()),
          }),
          { description: "the clients without full support" },
        ),
      }),
      { description: "features some client supports partly or not at all, least supported first" },
    ),
  },
  { title: "HtmlAnalysis" },
);
export const LinkAnalysis = t.Object(
  {
    links: t.Array(
      t.Object({
        url: t.String({ examples: ["https://shop.example/orders/4812"] }),
        kind: t.Union([t.Literal("link"), t.Literal("image")], {
          description: "link: a link of the text or HTML body; image: content the HTML loads by itself (images, stylesheets)",
        }),
        status: t.Union([t.Integer(), t.Null()], { description: "the last HTTP status received; null when none was" }),
        ok: t.Boolean({ description: "a 2xx at the end of the redirects" }),
        method: t.Union([t.Literal("HEAD"), t.Literal("GET")], { description: "GET when HEAD was answered with an error" }),
        redirects: t.Array(t.Object({ url: t.String(), status: t.Integer() }), {
          description: "each redirect followed: where it pointed and the status that sent there",
        }),
        error: t.Optional(
          t.String({
            description: "timeout, dns, connect, tls, private_address, redirect_loop, too_many_redirects or invalid_url",
          }),
        ),
        error_message: t.Optional(t.String()),
        duration_ms: t.Integer(),
      }),
      { description: "distinct http(s) URLs, links first, in order of appearance" },
    ),
    truncated: t.Boolean({ description: "more URLs than are checked per message (200); the rest are left out" }),
  },
  { title: "LinkAnalysis" },
);
export const AgentAttachment = Open({ id: Id, message_id: Id, size_bytes: t.Integer(), sha256: t.String() }, "AgentAttachment");

// -- webhooks ---------------------------------------------------------------------------------
export const Webhook = t.Object(
  {
    id: Id,
    url: t.String({ examples: ["https://ci.example.com/hooks/inboxd"] }),
    description: NullableString(),
    event_types: t.Array(t.String(), { examples: [["message.received"]] }),
    inbox_id: NullableString("only this inbox's events; null: every inbox"),
    enabled: t.Boolean(),
    paused: t.Boolean(),
    health: Open({ state: t.String({ description: "healthy, failing, circuit_open, paused or disabled" }) }),
    secret: t.Optional(
      Secret("signing secret; only in the answers of create and rotate-secret (an Idempotency-Key replay of the create leaves it out)"),
    ),
    created_at: Ts,
    updated_at: Ts,
  },
  { title: "Webhook" },
);
export const WebhookDelivery = Open(
  {
    id: t.String(),
    webhook_id: Id,
    event_type: t.String(),
    status: t.String(),
    attempt_count: t.Integer(),
    attempts: t.Array(AnyObject()),
  },
  "WebhookDelivery",
);

// -- automation -------------------------------------------------------------------------------
export const Agent = t.Object(
  {
    id: Id,
    name: t.String(),
    description: t.String(),
    permissions: t.Array(t.String()),
    preset: NullableString("standard for the project's preset agent"),
    created_at: Ts,
    updated_at: Ts,
  },
  { title: "Agent" },
);
export const AgentSession = Open(
  { ulid: Id, status: t.String(), trigger_type: t.String({ examples: ["mcp"] }), scopes: t.Array(t.String()) },
  "AgentSession",
);
export const Approval = Open({ ulid: Id, status: t.String({ description: "pending, approved, rejected or expired" }) }, "Approval");
export const HttpOrigin = t.Object(
  {
    id: Id,
    origin: t.String({ examples: ["https://api.example.com"] }),
    scheme: t.String(),
    host: t.String(),
    port: t.Integer(),
    is_wildcard: t.Boolean(),
    description: NullableString(),
    last_used_at: NullableTs,
    created_at: Ts,
    updated_at: Ts,
  },
  { title: "HttpOrigin" },
);
export const ScenarioSecret = t.Object(
  {
    id: Id,
    name: t.String({ examples: ["SHOP_PASSWORD"] }),
    version: t.Integer(),
    reference: t.String(),
    last_used_at: NullableTs,
    rotated_at: NullableTs,
    created_at: Ts,
    updated_at: Ts,
  },
  { title: "ScenarioSecret" },
);
export const Scenario = Open({ id: Id, name: t.String(), draft_revision: t.Integer() }, "Scenario");
export const ScenarioVersion = Open({ id: Id, version: t.Integer({ minimum: 1 }) }, "ScenarioVersion");
export const ValidationResult = t.Object(
  {
    valid: t.Boolean(),
    errors: t.Array(t.Object({ path: t.String(), code: t.String(), message: t.String() })),
    required_permissions: t.Array(t.String()),
    has_test_mutations: t.Boolean(),
  },
  { title: "ValidationResult" },
);
export const Run = Open({ id: Id, status: t.String() }, "Run");
export const RunEvent = Open({ id: t.String(), sequence: t.Integer(), type: t.String() }, "RunEvent");
export const Usage = Open(
  { project: Open({ id: Id }), quotas: t.Record(t.String(), t.Number()), usage: t.Record(t.String(), t.Number()) },
  "Usage",
);
