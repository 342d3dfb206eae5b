// The served /openapi.json passes Redocly's recommended rules with 0 errors (warnings are listed
// in docs/api.md: the operations routes have no 4xx answer, and the document names no licence).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, startInboxd, type Instance } from "../support/harness";

let inst: Instance;
let dir: string;
beforeAll(async () => {
  inst = await startInboxd();
  dir = mkdtempSync(join(tmpdir(), "inboxd-lint-"));
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test("redocly lint of the served document: 0 errors, and only the accepted warnings", async () => {
  const file = join(dir, "openapi.json");
  writeFileSync(file, await (await fetch(`${inst.url}/openapi.json`)).text());
  const proc = Bun.spawn(["node", join(ROOT, "node_modules/@redocly/cli/bin/cli.js"), "lint", file, "--format=json"], {
    cwd: dir,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
  });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  const report = JSON.parse(out.slice(out.indexOf("{")));
  const problems: { ruleId: string; severity: string; message: string; location?: { pointer?: string }[] }[] = report.problems;
  const errors = problems.filter((p) => p.severity === "error");
  const warnings = problems.filter((p) => p.severity === "warn");
  expect(
    errors.map((p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`),
    err,
  ).toEqual([]);
  // Accepted: the operations probes have no 4xx answer, and the project names no licence yet.
  const accepted = (w: string) =>
    /^operation-4xx-response at #\/paths\/~1(healthz|readyz|metrics)\//.test(w) || w.startsWith("info-license");
  expect(warnings.map((p) => `${p.ruleId} at ${p.location?.[0]?.pointer}`).filter((w) => !accepted(w))).toEqual([]);
}, 120_000);
