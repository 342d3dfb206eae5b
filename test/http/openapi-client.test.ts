// A client generated from the served /openapi.json (openapi-typescript + openapi-fetch) type-checks
// a strict script with zero errors; and the types committed in clients/typescript are up to date.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, startInboxd, type Instance } from "../support/harness";
import { generateTypes } from "../../clients/typescript/scripts/generate-types";

let inst: Instance;
let doc: unknown;
const dir = join(ROOT, ".tmp", `openapi-client-${process.pid}`);
beforeAll(async () => {
  inst = await startInboxd();
  doc = await (await fetch(`${inst.url}/openapi.json`)).json();
  mkdirSync(dir, { recursive: true });
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const SCRIPT = `import createClient from "openapi-fetch";
import type { paths } from "./schema";

const api = createClient<paths>({ baseUrl: "http://127.0.0.1:8025", headers: { authorization: "Bearer isk_live_…" } });

export async function signUpCode(): Promise<string> {
  const created = await api.POST("/v1/inboxes", { body: { name: "sign-up", ttl_seconds: 600 } });
  if (!created.data) throw new Error(created.error.code + ": " + created.error.message);
  const inbox = created.data.data;
  const address: string = inbox.address;
  const latest = await api.GET("/v1/inboxes/{id}/messages/latest", {
    params: { path: { id: inbox.id }, query: { wait: 30, q: "has:code" } },
  });
  if (!latest.data) throw new Error(latest.error.request_id);
  const codes: string[] = latest.data.data.codes;
  const next: string = latest.data.meta.poll_token;
  const first = codes[0];
  if (first === undefined) throw new Error("no code for " + address + " " + next);
  await api.DELETE("/v1/inboxes/{id}", { params: { path: { id: inbox.id } } });
  return first;
}
`;

test("a client generated from /openapi.json type-checks a strict script (create inbox, long-poll latest, read codes)", async () => {
  writeFileSync(join(dir, "schema.d.ts"), await generateTypes(doc));
  writeFileSync(join(dir, "script.ts"), SCRIPT);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "ESNext",
        moduleResolution: "bundler",
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        skipLibCheck: false,
        types: [],
        lib: ["ES2022", "DOM"],
      },
      files: ["script.ts"],
    }),
  );
  const proc = Bun.spawn([join(ROOT, "node_modules/.bin/tsc"), "-p", join(dir, "tsconfig.json")], { stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  expect(out + err).toBe("");
  expect(await proc.exited).toBe(0);
  // A script that misuses the types fails: the check is real.
  writeFileSync(join(dir, "script.ts"), SCRIPT.replace("const codes: string[] =", "const codes: number[] ="));
  const bad = Bun.spawn([join(ROOT, "node_modules/.bin/tsc"), "-p", join(dir, "tsconfig.json")], { stdout: "pipe", stderr: "pipe" });
  expect(await bad.exited).not.toBe(0);
}, 120_000);

test("clients/typescript/src/schema.d.ts is the document's current types (regenerate: npm run generate -w clients/typescript)", async () => {
  const committed = readFileSync(join(ROOT, "clients/typescript/src/schema.d.ts"), "utf8");
  expect(committed === (await generateTypes(doc))).toBe(true);
});
