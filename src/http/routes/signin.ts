// One-click sign-in for the web UI: `inboxd serve` prints http://HOST:PORT/#signin=<token> at
// start-up; the UI posts the token here and gets a device session, as POST /v1/devices gives for
// an email and password. A token works once and for 15 minutes (IdentityService.issueSignin).
import { Elysia, t } from "elysia";
import type { RouteModule } from ".";
import { ErrorBody, Ts, Ulid } from "../schemas";
import { Secret } from "../resources";

const tags = ["account"];

export const SigninBody = t.Object(
  {
    token: t.String({ minLength: 1, maxLength: 200, description: "the token of the sign-in link (after #signin=)", examples: ["iss_…"] }),
    name: t.Optional(t.String({ maxLength: 100, description: "a name for the device session", examples: ["Web UI (Chrome)"] })),
  },
  { title: "SigninRequest" },
);

export const SigninResponse = t.Object(
  {
    data: t.Object(
      {
        id: Ulid("the device session's id"),
        name: t.String(),
        token: Secret("the device session token (isd_…), shown only in this answer"),
        created_at: Ts,
        last_seen_at: Ts,
      },
      { title: "DeviceSessionCreated" },
    ),
  },
  { title: "SigninResponse" },
);

const mod: RouteModule = (_ctx, s) =>
  new Elysia().post(
    "/v1/signin",
    async ({ body, set }) => {
      const d = await s.identity.redeemSignin(body.token, body.name ?? "Web UI (sign-in link)");
      set.status = 201;
      return { data: d };
    },
    {
      body: SigninBody,
      response: { 201: SigninResponse, 401: ErrorBody, 422: ErrorBody },
      detail: {
        summary: "Redeem a one-time sign-in link for a device session",
        description:
          "The token of a link printed by `inboxd serve` (http://HOST:PORT/#signin=TOKEN). It works once, for 15 minutes; an unknown, used or expired token is 401 invalid_signin_link.",
        operationId: "createSignin",
        tags,
        security: [],
      },
    },
  );

export default mod;
