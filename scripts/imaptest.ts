// Runs Dovecot's imaptest (built by scripts/imaptest.sh) against a fresh inboxd: its scripted
// tests (`test=DIR`) and, with --stress SECONDS, its stress mode (10 clients appending, fetching,
// storing, expunging). Usage: bun scripts/imaptest.ts IMAPTEST_BINARY TESTS_DIR [--stress SECONDS] [--only NAME]
import { json, startInboxd } from "../test/support/harness";

const [bin, testsDir, ...rest] = process.argv.slice(2);
if (!bin || !testsDir) {
  console.error("usage: bun scripts/imaptest.ts IMAPTEST_BINARY TESTS_DIR [--stress SECONDS] [--only NAME]");
  process.exit(2);
}
const opt = (name: string) => {
  const i = rest.indexOf(name);
  return i >= 0 ? rest[i + 1] : undefined;
};

const inst = await startInboxd({ INBOXD_PLAN: "" });
let code = 0;
try {
  const ib = await json(inst.api("/v1/inboxes", { method: "POST", json: {} }));
  if (ib.status !== 201) throw new Error(`creating an inbox: HTTP ${ib.status}`);
  const cr = await json(inst.api(`/v1/inboxes/${ib.body.data.id}/credentials`));
  const user = ib.body.data.address as string;
  const pass = cr.body.data.password as string;
  const common = [`host=127.0.0.1`, `port=${inst.ports.imap}`, "ssl=any-cert", `user=${user}`, `pass=${pass}`];
  const only = opt("--only");
  const stress = opt("--stress");
  const args = stress
    ? [...common, "clients=10", `secs=${stress}`, `mbox=${testsDir}/default.mbox`]
    : [...common, `test=${only ? `${testsDir}/${only}` : testsDir}`];
  console.log(`imaptest ${args.filter((a) => !a.startsWith("pass=")).join(" ")}`);
  const p = Bun.spawn([bin, ...args], { stdout: "inherit", stderr: "inherit" });
  code = await p.exited;
} finally {
  await inst.stop();
  inst.cleanup();
}
process.exit(code);
