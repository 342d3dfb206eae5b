// Log-in back-off benchmark (issue 18): wrong passwords on POST /v1/devices from one address, as
// fast as one client sends them, against a real inboxd twice: with the default back-off, and with
// the back-off out of reach (allowances of 1,000,000), which is how inboxd behaved before. Per run:
// answers by status, the median and p99 latency of each, and the server's CPU time (utime+stime
// from /proc) spent on the run — what refusing before argon2 saves.
//   bun bench/login-backoff.ts [--attempts N]
// Figures are printed, never asserted.
import { readFileSync } from "node:fs";
import { ADMIN_EMAIL, startInboxd } from "../test/support/harness";
import { arg, machineLine, pct } from "./support";

const ATTEMPTS = arg("attempts", 500);
const TICKS = 100; // USER_HZ on Linux

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

async function run(label: string, env: Record<string, string>): Promise<void> {
  const inst = await startInboxd(env);
  try {
    const byStatus = new Map<number, number[]>();
    const cpu0 = cpuSeconds(inst.proc.pid);
    const t0 = performance.now();
    for (let i = 0; i < ATTEMPTS; i++) {
      const s = performance.now();
      const r = await fetch(`${inst.url}/v1/devices`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: ADMIN_EMAIL, password: `wrong-${i}`, name: "bench" }),
      });
      await r.arrayBuffer();
      const list = byStatus.get(r.status) ?? [];
      list.push(performance.now() - s);
      byStatus.set(r.status, list);
    }
    const wall = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(inst.proc.pid) - cpu0;
    console.log(`${label}: ${ATTEMPTS} wrong passwords in ${wall.toFixed(1)} s, server CPU ${cpu.toFixed(2)} s`);
    for (const [status, ms] of [...byStatus].sort((a, b) => a[0] - b[0])) {
      console.log(`  ${status}: ${ms.length} answers, median ${pct(ms, 50).toFixed(2)} ms, p99 ${pct(ms, 99).toFixed(2)} ms`);
    }
  } finally {
    await inst.stop();
    inst.cleanup();
  }
}

console.log(machineLine());
await run("back-off (defaults)", {});
await run("no back-off (allowances 1,000,000)", {
  INBOXD_LOGIN_FAILURES_PER_ACCOUNT_ADDRESS: "1000000",
  INBOXD_LOGIN_FAILURES_PER_ADDRESS: "1000000",
  INBOXD_LOGIN_FAILURES_PER_ACCOUNT: "1000000",
});
