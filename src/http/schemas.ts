// Shared TypeBox pieces for route schemas (they also build the OpenAPI document).
import { t } from "elysia";

export const ULID_PATTERN = "^[0-9A-HJKMNP-TV-Z]{26}$";
export const Ulid = (description?: string) => t.String({ pattern: ULID_PATTERN, description });
export const IdParams = t.Object({ id: Ulid() });
/** The header that makes a call a step of an agent session's run (routes an agent session may use). */
export const SessionHeader = t.Object({
  "x-service-agent-session": t.Optional(t.String({ description: "agent session ULID: the call is a step of that session's run" })),
});
export const Ts = t.String({ format: "date-time" });
export const NullableTs = t.Union([Ts, t.Null()]);

export const ErrorBody = t.Object(
  {
    code: t.String(),
    message: t.String(),
    details: t.Record(t.String(), t.Unknown()),
    request_id: t.String(),
  },
  { title: "Error" },
);

export const One = <T extends Parameters<typeof t.Object>[0]>(props: T, title?: string) => t.Object({ data: t.Object(props, { title }) });

export const Collection = (item: ReturnType<typeof t.Object>) =>
  t.Object({
    data: t.Array(item),
    meta: t.Object({ limit: t.Integer(), has_more: t.Boolean() }, { additionalProperties: true }),
    links: t.Object({ next: t.Union([t.String(), t.Null()]) }),
  });

export const ProjectHeader = t.Object({
  "x-service-project": t.Optional(t.String({ description: "project ULID; required for device sessions" })),
  "idempotency-key": t.Optional(t.String({ description: "at most 255 characters; replays the stored response" })),
});
