// Runs scripts/check-clients.ts against a served instance: every installed client (Python poplib
// and imaplib, curl pop3s:// and imaps://, mbsync) must read back the exact bytes sent over SMTP.
// Clients that are not installed are reported SKIP by the script, and so are their checks here
// (a failure where the run requires them: components.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT, startInboxd, type Instance } from "../support/harness";
import { needs } from "../support/components";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const installed = {
  python3: needs("python3", Bun.which("python3") !== null, "apt-get install python3"),
  curl: needs("curl", Bun.which("curl") !== null, "apt-get install curl"),
  isync: needs("isync", Bun.which("mbsync") !== null, "apt-get install isync"),
};
const CLIENTS = [
  { name: "python-poplib", installed: installed.python3, imap: false },
  { name: "python-imaplib", installed: installed.python3, imap: true },
  { name: "curl-pop3s", installed: installed.curl, imap: false },
  { name: "curl-imaps", installed: installed.curl, imap: true },
  { name: "mbsync", installed: installed.isync, imap: true },
];

async function checkClients(extra: string[] = []): Promise<{ code: number; out: string; results: Map<string, string> }> {
  const p = Bun.spawn(
    [
      process.execPath,
      join(ROOT, "scripts/check-clients.ts"),
      "--url",
      inst.url,
      "--key",
      inst.key,
      "--smtp",
      `127.0.0.1:${inst.ports.smtp}`,
      ...extra,
    ],
    { cwd: ROOT, stdout: "pipe", stderr: "pipe" },
  );
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  const code = await p.exited;
  const results = new Map<string, string>();
  for (const m of out.matchAll(/^(PASS|FAIL|SKIP) ([\w-]+)/gm)) results.set(m[2]!, m[1]!);
  return { code, out: out + err, results };
}

describe("ordinary mail clients read the message back byte-identical", () => {
  test("every installed client passes; missing ones are skipped, never failed", async () => {
    const r = await checkClients();
    expect(r.out).not.toContain("FAIL");
    expect(r.code).toBe(0);
    // REST raw is the baseline the clients are compared with, and needs nothing installed.
    expect(r.results.get("rest-raw")).toBe("PASS");
    const imapUp = inst.ports.imap !== undefined;
    for (const c of CLIENTS) {
      const expected = c.installed && (!c.imap || imapUp) ? "PASS" : "SKIP";
      expect(`${c.name} ${r.results.get(c.name)}`).toBe(`${c.name} ${expected}`);
    }
  });

  test.skipIf(!installed.python3)("the same holds when the message is sent with Python's smtplib instead of swaks", async () => {
    const r = await checkClients(["--sender", "python", "--only", "python-poplib,curl-pop3s"]);
    expect(r.out).toContain("via python3 smtplib");
    expect(r.code).toBe(0);
    expect(r.results.get("python-poplib")).toBe("PASS");
    expect(r.results.get("curl-pop3s")).toBe(installed.curl ? "PASS" : "SKIP");
  });
});
