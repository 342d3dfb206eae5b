import { Elysia } from "elysia";
import type { RouteModule } from ".";
import { reqOf } from "../request";
import { requireScope } from "../../tenancy/auth";
import * as R from "../resources";
import { One } from "../resources";

const mod: RouteModule = (_ctx, s) =>
  new Elysia().get(
    "/v1/usage",
    async ({ request }) => {
      const { principal, project } = reqOf(request);
      requireScope(principal, "usage:read");
      return { data: await s.usage.usage(project) };
    },
    { response: { 200: One(R.Usage) }, detail: { summary: "Show project usage and quotas", tags: ["usage"] } },
  );

export default mod;
