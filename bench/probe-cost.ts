// Server CPU per long-poll probe (issue 14): the acceptance bench parks a long-poll on a probe
// inbox and sends one message to it, over and over, while smtp-source runs; this measures what one
// such probe costs the server's main thread on its own, plain and filtered (q).
//   bun bench/probe-cost.ts [--probes N]
import { readFileSync } from "node:fs";
import { json, startInboxd } from "../test/support/harness";
import { arg, machineLine, SmtpClient } from "./support";

const PROBES = arg("probes", 400);
const mainCpuUs = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10_000;
};

console.log(machineLine());
// --profile DIR: the server runs under `bun --cpu-prof` (as in smtp-cpu.ts); --only MODE: one mode.
const profile = process.argv.includes("--profile") ? process.argv[process.argv.indexOf("--profile") + 1] : undefined;
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
const inst = await startInboxd({
  INBOXD_PLAN: "business",
  ...(profile ? { BUN_OPTIONS: `--cpu-prof --cpu-prof-dir=${profile}` } : {}),
});
try {
  const probe = (await json(inst.api("/v1/inboxes", { method: "POST", json: { name: "probe" } }))).body.data;
  const sender = await SmtpClient.open(inst.ports.smtp!);
  const pid = inst.proc.pid;
  const modes = only ? [only.replace("-", " ")] : ["plain", "filtered", "plain", "filtered", "send only", "poll only"];
  for (const mode of modes) {
    const before = mainCpuUs(pid);
    const t0 = performance.now();
    for (let i = 0; i < PROBES; i++) {
      const word = `w${mode[0]}${i}x${Math.random().toString(36).slice(2, 8)}`;
      const q = new URLSearchParams({ wait: "10", view: "summary" });
      if (mode === "filtered") q.set("q", word);
      const poll =
        mode === "send only"
          ? Promise.resolve({ status: 200 })
          : mode === "poll only"
            ? inst.api(`/v1/inboxes/${probe.id}/messages/latest?view=summary`)
            : inst.api(`/v1/inboxes/${probe.id}/messages/latest?${q}`);
      if (mode !== "poll only") {
        if (mode !== "send only") await Bun.sleep(1);
        const body = `From: probe@example.com\r\nTo: <${probe.address}>\r\nSubject: probe ${i}\r\n\r\nthe ${word} probe\r\n`;
        await sender.deliver("probe@example.com", probe.address, body);
      }
      const r = await poll;
      if (r.status !== 200) throw new Error(`long-poll answered ${r.status}`);
      if ("text" in r) await r.text();
    }
    const ms = performance.now() - t0;
    console.log(
      `${mode.padEnd(9)} ${PROBES} probes in ${ms.toFixed(0)} ms: main thread ${((mainCpuUs(pid) - before) / PROBES).toFixed(0)} µs per probe`,
    );
  }
  sender.close();
} finally {
  await inst.stop();
}
