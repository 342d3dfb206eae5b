// Main-thread CPU per SMTP message, A/B (issue 14): several inboxd servers up at once, each from its
// own checkout (a git worktree of the "before" commit, this one) with its own environment;
// `smtp-source -s 8 -l 10240` runs (a new connection per message, then -d) alternate between them,
// the order reversed every pair, so a shared machine's load changes hit every server alike. Around
// each run the server's CPU per thread is read from /proc (as bench/smtp-cpu.ts); medians at the end.
//   bun bench/smtp-cpu-ab.ts [--messages 1000] [--pairs 4] before=/tmp/w-main after=.:INBOXD_X=1,INBOXD_Y=2 ...
// Figures are printed, never asserted. Linux only (/proc); needs Postfix's smtp-source.
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { smtpSource } from "./support";
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
const tick = 10000;
const taskCpu = (pid: number, tid: string) => {
  try {
    const s = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * tick;
  } catch {
    return 0;
  }
};
const threads = (pid: number) => {
  const m = new Map<string, number>();
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    let n = "?";
    try {
      n = readFileSync(`/proc/${pid}/task/${t}/comm`, "utf8").trim();
    } catch {}
    if (Number(t) === pid) n = "main";
    m.set(n, (m.get(n) ?? 0) + taskCpu(pid, t));
  }
  return m;
};
if (!Bun.which("smtp-source")) {
  console.log("smtp-source (Postfix) not installed: skipped");
  process.exit(0);
}
if (specs.length === 0) {
  console.log("usage: bun bench/smtp-cpu-ab.ts [--messages N] [--pairs P] label=DIR[:ENV=V,...] ...");
  process.exit(1);
}
const servers: any[] = [];
for (const s of specs) {
  const h = await import(`${s.dir}/test/support/harness.ts`);
  const inst = await h.startInboxd({ INBOXD_PLAN: "business", ...s.env });
  const inbox = (await h.json(inst.api("/v1/inboxes", { method: "POST", json: { name: "bench" } }))).body.data;
  servers.push({ ...s, inst, inbox, h, res: { new: [] as number[][], d: [] as number[][] } });
}
for (const s of servers) await smtpSource({ port: s.inst.ports.smtp, to: s.inbox.address, messages: 500, reuse: true });
const fmt = (m: Map<string, number>) =>
  [...m]
    .filter(([, v]) => v >= 5)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v.toFixed(0)}`)
    .join(", ");
try {
  for (let p = 0; p < PAIRS; p++)
    for (const reuse of [false, true]) {
      const order = p % 2 === 0 ? servers : [...servers].reverse();
      for (const s of order) {
        const pid = s.inst.proc.pid;
        const a = threads(pid);
        const { seconds: secs } = await smtpSource({ port: s.inst.ports.smtp, to: s.inbox.address, messages: MESSAGES, reuse });
        const b = threads(pid);
        const per = new Map([...b].map(([k, v]) => [k, (v - (a.get(k) ?? 0)) / MESSAGES]));
        const main = per.get("main")!;
        const all = [...per.values()].reduce((x, y) => x + y, 0);
        s.res[reuse ? "d" : "new"].push([MESSAGES / secs, main, all]);
        console.log(
          `${new Date().toISOString().slice(11, 19)} load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]} ${s.label.padEnd(8)} ${reuse ? "-d " : "new"} ${(MESSAGES / secs).toFixed(0).padStart(5)} msg/s main ${main.toFixed(0)} all ${all.toFixed(0)} | ${fmt(per)}`,
        );
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
        `${s.label.padEnd(8)} ${k.padEnd(3)} median: ${median(r.map((x: number[]) => x[0])).toFixed(0)} msg/s, main ${median(r.map((x: number[]) => x[1])).toFixed(0)} µs, all ${median(r.map((x: number[]) => x[2])).toFixed(0)} µs (mean main ${mean(r.map((x: number[]) => x[1])).toFixed(0)})`,
      );
    }
} finally {
  for (const s of servers) {
    await s.inst.stop();
    s.inst.cleanup();
  }
}
