// The server's memory while the full-text index catches up (issue 19: RSS peaked at 525-530 MB
// at 1M, over the 500 MB goal, after seeding). Seeds `--messages` ~2 KB messages (bench/scale-seed.ts),
// deletes the search database so the server indexes every one of them at start (the worst
// catch-up: the scale bench leaves ~100,000 behind at 1M), then samples /proc/<pid>/status every
// 250 ms until the message seeded last is searchable, and prints RSS split into anonymous memory
// (heap, SQLite caches) and file pages (mmap of inboxd.db), with their peaks.
//   bun bench/index-catchup-rss.ts [--messages 200000] [--keep]
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { json, startInboxd } from "../test/support/harness";
import { seed } from "./scale-seed";
import { arg, machineLine } from "./support";

const N = arg("messages", 200_000);

function status(pid: number) {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const mb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) / 1024;
  return { rss: mb("VmRSS"), anon: mb("RssAnon"), file: mb("RssFile"), hwm: mb("VmHWM") };
}

console.log(machineLine());
let inst = await startInboxd({ INBOXD_PLAN: "", INBOXD_HTTP_PRECOMPILE: "on" });
try {
  const ib = await json(inst.api("/v1/inboxes", { method: "POST", json: { ttl_seconds: 2592000 } }));
  const u = await json(inst.api("/v1/usage"));
  const box = {
    id: ib.body.data.id,
    address: ib.body.data.address,
    password: "",
    projectId: ib.body.data.project_id ?? u.body.data.project.id,
  };
  await inst.stop();
  const t = performance.now();
  await seed(inst.dataDir, box, 0, N);
  console.log(`seeded ${N.toLocaleString("en")} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const searchFile = join(inst.dataDir, "inboxd-search.db");
  for (const f of [searchFile, `${searchFile}-wal`, `${searchFile}-shm`]) rmSync(f, { force: true });
  const t0 = performance.now();
  inst = await inst.restart();
  const pid = inst.proc.pid;
  let peak = { rss: 0, anon: 0, file: 0, hwm: 0 };
  const sample = () => {
    const s = status(pid);
    peak = { rss: Math.max(peak.rss, s.rss), anon: Math.max(peak.anon, s.anon), file: Math.max(peak.file, s.file), hwm: s.hwm };
    return s;
  };
  const atReady = sample();
  console.log(
    `ready in ${((performance.now() - t0) / 1000).toFixed(1)} s: RSS ${atReady.rss.toFixed(0)} MiB (anon ${atReady.anon.toFixed(0)}, file ${atReady.file.toFixed(0)})`,
  );
  const sampler = setInterval(sample, 250);
  let lastPrint = performance.now();
  for (;;) {
    const r = await json(inst.api(`/v1/inboxes/${box.id}/messages?q=seedtok${N - 1}&limit=1`));
    if (r.body?.data?.length) break;
    if (performance.now() - lastPrint > 5000) {
      const s = sample();
      console.log(
        `  ${((performance.now() - t0) / 1000).toFixed(0)} s: RSS ${s.rss.toFixed(0)} (anon ${s.anon.toFixed(0)}, file ${s.file.toFixed(0)}) MiB`,
      );
      lastPrint = performance.now();
    }
    await Bun.sleep(500);
  }
  clearInterval(sampler);
  const end = sample();
  console.log(`caught up ${((performance.now() - t0) / 1000).toFixed(1)} s after start`);
  console.log(`RSS now ${end.rss.toFixed(0)} MiB (anon ${end.anon.toFixed(0)}, file ${end.file.toFixed(0)})`);
  console.log(
    `peak: RSS ${peak.rss.toFixed(0)} MiB sampled, ${peak.hwm.toFixed(0)} MiB VmHWM; anon ${peak.anon.toFixed(0)}, file ${peak.file.toFixed(0)}`,
  );
} finally {
  await inst.stop();
  if (!process.argv.includes("--keep")) inst.cleanup();
  else console.log(`data directory kept: ${inst.dataDir}`);
}
process.exit(0);
