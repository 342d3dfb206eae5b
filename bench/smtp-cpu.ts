// Main-thread CPU per SMTP message (issue 14): a fresh inboxd (Business plan, durable commits) takes
// `smtp-source -s 8 -l 10240 -m N` (Postfix) with a new connection per message, then with -d
// (sessions reused); around each run the server's CPU time is read from /proc/<pid>/task/*/stat, so
// the figure is µs of CPU per message for the main thread (the event loop) and for all threads.
// CPU per message moves less with other load on a shared machine than messages/s does.
// The whole machine's CPU per message (every process, smtp-source and the kernel included: /proc/stat) is
// printed beside it: what a server that kept both cores busy could at most take is cores / that.
//   bun bench/smtp-cpu.ts [--messages N] [--rounds R] [--warmup N] [--threads] [--profile DIR]
// --threads: also CPU per message of each server thread, by thread name (the JIT, the workers).
// Figures are printed, never asserted. Linux only (/proc).
import { readFileSync } from "node:fs";
import { json, startInboxd } from "../test/support/harness";
import { arg, cpuByThread, loadAverage, machineCpu, machineLine, machinePerMessage, smtpSource, TICK_US } from "./support";

const MESSAGES = arg("messages", 3000);
const ROUNDS = arg("rounds", 1);
const THREADS = process.argv.includes("--threads");
/** Unmeasured messages first (-d): JSC's JIT keeps compiling for the first ~10,000 (docs/benchmarks.md, 2026-11-28). */
const WARMUP = arg("warmup", 500);

function cpu(pid: number): { main: number; all: number } {
  const per = cpuByThread(pid);
  let all = [...per.values()].reduce((x, y) => x + y, 0);
  // Threads that ended between two readings drop out of `all`; /proc/<pid>/stat keeps their time.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  all = Math.max(all, (Number(f[11]) + Number(f[12])) * TICK_US);
  return { main: per.get("main") ?? 0, all };
}

if (!Bun.which("smtp-source")) {
  console.log("smtp-source (Postfix) not installed: skipped");
  process.exit(0);
}
console.log(machineLine());
// --profile DIR: the server runs under `bun --cpu-prof` and writes its profile there on exit.
const profile = process.argv.includes("--profile") ? process.argv[process.argv.indexOf("--profile") + 1] : undefined;
const inst = await startInboxd({
  INBOXD_PLAN: "business",
  ...(profile ? { BUN_OPTIONS: `--cpu-prof --cpu-prof-dir=${profile}` } : {}),
});
try {
  const pid = inst.proc.pid;
  const inbox = (await json(inst.api("/v1/inboxes", { method: "POST", json: { name: "bench" } }))).body.data;
  const port = inst.ports.smtp!;
  await smtpSource({ port, to: inbox.address, messages: WARMUP, reuse: true }); // warm-up (JIT)
  let expected = WARMUP;
  for (let round = 0; round < ROUNDS; round++) {
    for (const reuse of [false, true]) {
      const threadsBefore = THREADS ? cpuByThread(pid) : null;
      const before = cpu(pid);
      const m0 = machineCpu();
      const r = await smtpSource({ port, to: inbox.address, messages: MESSAGES, reuse });
      const m1 = machineCpu();
      const after = cpu(pid);
      const machine = machinePerMessage(m0, m1, r.seconds, MESSAGES);
      const threadsAfter = THREADS ? cpuByThread(pid) : null;
      expected += MESSAGES;
      const per = (x: number) => ((x / MESSAGES) | 0).toString();
      console.log(
        `smtp-source -s 8 -m ${MESSAGES} -l 10240${reuse ? " -d" : "   "}: ${(MESSAGES / r.seconds).toFixed(0)} msg/s; ` +
          `server CPU per message: main thread ${per(after.main - before.main)} µs, all threads ${per(after.all - before.all)} µs; ` +
          `machine ${machine.us.toFixed(0)} µs (${machine.cores.toFixed(2)} cores busy)` +
          (r.ok ? "" : " (smtp-source failed)"),
      );
      if (threadsBefore && threadsAfter) {
        const parts = [...threadsAfter]
          .map(([name, us]) => [name, (us - (threadsBefore.get(name) ?? 0)) / MESSAGES] as const)
          .filter(([, us]) => us >= 5)
          .sort((a, b) => b[1] - a[1]);
        console.log(`  per thread (µs/message): ${parts.map(([n, us]) => `${n} ${us.toFixed(0)}`).join(", ")}`);
      }
    }
  }
  const total = (await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data.message_count;
  console.log(`inbox holds ${total} messages (expected ${expected}); load average now ${loadAverage()}`);
} finally {
  await inst.stop();
  inst.cleanup();
}
