// A fresh instance without INBOXD_PLAN runs the self-hosted plan (docs/plans.md): a parallel CI
// suite is not refused its 26th inbox, and the usage resource says which plan applies.
import { expect, test } from "bun:test";
import { json, startInboxd } from "../support/harness";

test("without INBOXD_PLAN the team is on the self-hosted plan: 30 inboxes at once are fine", async () => {
  const inst = await startInboxd({ INBOXD_PLAN: "" });
  try {
    const usage = (await json(inst.api("/v1/usage"))).body.data;
    expect(usage.quotas).toMatchObject({ concurrent_inboxes: -1, retention_days: 30, custom_domains: -1 });
    const created = await Promise.all(Array.from({ length: 30 }, () => json(inst.api("/v1/inboxes", { method: "POST", json: {} }))));
    expect(created.map((r) => r.status)).toEqual(Array(30).fill(201));
    expect((await json(inst.api("/v1/usage"))).body.data.usage.concurrent_inboxes).toBe(30);
  } finally {
    await inst.stop();
    inst.cleanup();
  }
});
