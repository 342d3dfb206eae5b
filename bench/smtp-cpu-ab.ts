// Main-thread CPU per SMTP message, A/B (issue 14): several inboxd servers up at once, each from its
// own checkout (a git worktree of the "before" commit, this one) with its own environment;
// `smtp-source -s 8 -l 10240` runs (a new connection per message, then -d) alternate between them,
// the order reversed every pair, so a shared machine's load changes hit every server alike. Around
// each run the server's CPU per thread is read from /proc (as bench/smtp-cpu.ts), and the whole machine's
// CPU per message from /proc/stat (meaningful with --one-at-a-time); medians at the end.
//   bun bench/smtp-cpu-ab.ts [--messages 1000] [--pairs 4] [--warmup 500] [--one-at-a-time] before=/tmp/w-main after=.:INBOXD_X=1 ...
// Figures are printed, never asserted. Linux only (/proc); needs Postfix's smtp-source.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { cpuByThread, machineCpu, machinePerMessage, smtpSource } from "./support";
const argv = process.argv.slice(2);
const opt = (n: string, d: number) => (argv.includes(`--${n}`) ? Number(argv[argv.indexOf(`--${n}`) + 1]) : d);
const MESSAGES = opt("messages", 1000),
  PAIRS = opt("pairs", 4);
const specs = argv
  .filter((a) => !a.startsWith("--") && /^\w[\w.-]*=[./]/.test(a))
  .map((a) => {
    const [label, rest] = [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)];
    const [dir, envs] = rest.split(":");
    const env: Record<string, string> = {};
    for (const kv of (envs ?? "").split(",").filter(Boolean)) env[kv.split("=")[0]!] = kv.split("=")[1]!;
    return { label, dir: resolve(dir!), env };
  });
if (!Bun.which("smtp-source")) {
  console.log("smtp-source (Postfix) not installed: skipped");
  process.exit(0);
}
if (specs.length === 0) {
  console.log("usage: bun bench/smtp-cpu-ab.ts [--messages N] [--pairs P] [--warmup N] [--one-at-a-time] label=DIR[:ENV=V,...] ...");
  process.exit(1);
}
// --one-at-a-time: each server runs alone, started for its turn (after --warmup messages) and stopped after it,
// so an idle server's threads (its search index catching up, its checkpoints) never run during another's turn;
// the whole machine's CPU per message (every process, the kernel too) is then that server's.
const ONE_AT_A_TIME = argv.includes("--one-at-a-time");
const WARMUP = opt("warmup", 500);
const servers: any[] = specs.map((s) => ({ ...s, inst: null, inbox: null, res: { new: [] as number[][], d: [] as number[][] } }));
async function up(s: any): Promise<void> {
  const h = await import(`${s.dir}/test/support/harness.ts`);
  s.inst = await h.startInboxd({ INBOXD_PLAN: "business", ...s.env });
  s.inbox = (await h.json(s.inst.api("/v1/inboxes", { method: "POST", json: { name: "bench" } }))).body.data;
  await smtpSource({ port: s.inst.ports.smtp, to: s.inbox.address, messages: WARMUP, reuse: true });
}
async function down(s: any): Promise<void> {
  await s.inst?.stop();
  s.inst?.cleanup();
  s.inst = null;
}
if (!ONE_AT_A_TIME) for (const s of servers) await up(s);
const fmt = (m: Map<string, number>) =>
  [...m]
    .filter(([, v]) => v >= 5)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v.toFixed(0)}`)
    .join(", ");
async function turn(s: any, reuse: boolean): Promise<void> {
  const pid = s.inst.proc.pid;
  const a = cpuByThread(pid);
  const m0 = machineCpu();
  const { seconds: secs } = await smtpSource({ port: s.inst.ports.smtp, to: s.inbox.address, messages: MESSAGES, reuse });
  const m1 = machineCpu();
  const b = cpuByThread(pid);
  const per = new Map([...b].map(([k, v]) => [k, (v - (a.get(k) ?? 0)) / MESSAGES]));
  const main = per.get("main")!;
  const all = [...per.values()].reduce((x, y) => x + y, 0);
  const machine = machinePerMessage(m0, m1, secs, MESSAGES);
  s.res[reuse ? "d" : "new"].push([MESSAGES / secs, main, all, machine.us]);
  console.log(
    `${new Date().toISOString().slice(11, 19)} load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]} ${s.label.padEnd(8)} ${reuse ? "-d " : "new"} ${(MESSAGES / secs).toFixed(0).padStart(5)} msg/s main ${main.toFixed(0)} all ${all.toFixed(0)} machine ${machine.us.toFixed(0)} (${machine.cores.toFixed(2)} cores) | ${fmt(per)}`,
  );
}
try {
  for (let p = 0; p < PAIRS; p++) {
    const order = p % 2 === 0 ? servers : [...servers].reverse();
    if (ONE_AT_A_TIME) {
      for (const s of order) {
        await up(s);
        try {
          for (const reuse of [false, true]) await turn(s, reuse);
        } finally {
          await down(s);
        }
      }
    } else {
      for (const reuse of [false, true]) for (const s of order) await turn(s, reuse);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  for (const s of servers)
    for (const k of ["new", "d"] as const) {
      const r = s.res[k];
      console.log(
        `${s.label.padEnd(8)} ${k.padEnd(3)} median: ${median(r.map((x: number[]) => x[0])).toFixed(0)} msg/s, main ${median(r.map((x: number[]) => x[1])).toFixed(0)} µs, all ${median(r.map((x: number[]) => x[2])).toFixed(0)} µs, machine ${median(r.map((x: number[]) => x[3])).toFixed(0)} µs (mean main ${mean(r.map((x: number[]) => x[1])).toFixed(0)})`,
      );
    }
} finally {
  for (const s of servers) await down(s);
}
