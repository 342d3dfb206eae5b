// INBOXD_HTTP_PRECOMPILE (src/runtime/config.ts, docs/decisions.md): with every route compiled
// before listening, the server answers exactly as with routes compiled on first use (the
// default for tests): validation errors in the contract's envelope, pages, 404s.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/runtime/config";
import { json, startInboxd, type Instance } from "../support/harness";

describe("INBOXD_HTTP_PRECOMPILE", () => {
  test("on by default, off or on accepted, anything else refused at start-up", () => {
    expect(loadConfig({}).httpPrecompile).toBe("on");
    expect(loadConfig({ INBOXD_HTTP_PRECOMPILE: "off" }).httpPrecompile).toBe("off");
    expect(() => loadConfig({ INBOXD_HTTP_PRECOMPILE: "yes" })).toThrow(ConfigError);
  });

  describe("a server started with it on and one with it off", () => {
    const insts: Instance[] = [];
    beforeAll(async () => {
      insts.push(await startInboxd({ INBOXD_HTTP_PRECOMPILE: "on" }), await startInboxd({ INBOXD_HTTP_PRECOMPILE: "off" }));
    });
    afterAll(async () => {
      for (const i of insts) {
        await i.stop();
        i.cleanup();
      }
    });

    /** Status and error code (or page length) of the same requests on one instance. */
    async function answers(inst: Instance): Promise<unknown[]> {
      const out: unknown[] = [];
      const usage = await json(inst.api("/v1/usage"));
      out.push(usage.status, usage.body.data.usage.messages);
      const ib = await json(inst.api("/v1/inboxes", { method: "POST", json: {} }));
      out.push(ib.status);
      const list = await json(inst.api(`/v1/inboxes/${ib.body.data.id}/messages?limit=20`));
      out.push(list.status, list.body.data);
      for (const path of [`/v1/inboxes/${ib.body.data.id}/messages?limit=banana`, "/v1/inboxes/nope", "/v1/nothing-here"]) {
        const r = await json(inst.api(path));
        out.push(path.replace(ib.body.data.id, "ID"), r.status, r.body?.code);
      }
      out.push((await inst.api("/openapi.json")).status);
      return out;
    }

    test("answer, validate and page alike (errors in the contract's envelope)", async () => {
      const [on, off] = [await answers(insts[0]!), await answers(insts[1]!)];
      expect(on).toEqual(off);
      expect(on.slice(0, 5)).toEqual([200, 0, 201, 200, []]);
      expect(on[6]).toBeGreaterThanOrEqual(400);
      expect(typeof on[7]).toBe("string");
    });
  });
});
