// The first IMAP session after a restart, step by step (issue 19: the one /healthz spike at 1M):
// TLS handshake + greeting, LOGIN, SELECT, SELECT again, each timed with the longest /healthz
// answer while it ran, on a data directory seeded and kept by `bench/scale.ts --data DIR`.
//   bun bench/first-select.ts --data DIR [--runs 3]
// Each run restarts the server, so every run measures a first session.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import tls from "node:tls";
import { json, startInboxd } from "../test/support/harness";
import { arg, machineLine } from "./support";
import { prober } from "./healthz-prober";

const dataArg = process.argv.indexOf("--data");
if (dataArg < 0) throw new Error("--data DIR (seeded by bench/scale.ts --data DIR) is required");
const DIR = process.argv[dataArg + 1]!;
const RUNS = arg("runs", 3);
const state = JSON.parse(readFileSync(join(DIR, "scale-state.json"), "utf8"));

/** Reads until a line matching `end` arrives. */
function reader(socket: tls.TLSSocket) {
  let text = "";
  let wait: { re: RegExp; resolve: (s: string) => void } | null = null;
  socket.on("data", (d: Buffer) => {
    text += d.toString("latin1");
    if (wait?.re.test(text)) {
      const w = wait;
      wait = null;
      const t = text;
      text = "";
      w.resolve(t);
    }
  });
  return (re: RegExp) =>
    new Promise<string>((resolve) => {
      if (re.test(text)) {
        const t = text;
        text = "";
        resolve(t);
      } else wait = { re, resolve };
    });
}

console.log(machineLine());
console.log(
  `data directory ${DIR}: ${state.seeded.toLocaleString("en")} messages, ${state.bigCount.toLocaleString("en")} in the big inbox`,
);
for (let run = 1; run <= RUNS; run++) {
  const inst = await startInboxd({ INBOXD_PLAN: "", INBOXD_HTTP_PRECOMPILE: "on" }, DIR);
  const probe = prober(inst.url);
  try {
    // As bench/scale.ts: wait for the search index to catch up, then a usage call.
    for (;;) {
      const r = await json(inst.api(`/v1/inboxes/${state.newest.box.id}/messages?q=${state.newest.token}&limit=1`));
      if (r.body?.data?.length) break;
      await Bun.sleep(1000);
    }
    await json(inst.api("/v1/usage"));
    await Bun.sleep(300);
    const rows: string[] = [];
    let socket!: tls.TLSSocket;
    let until!: (re: RegExp) => Promise<string>;
    const step = async (name: string, fn: () => Promise<void>) => {
      probe.reset();
      const t = performance.now();
      await fn();
      const ms = performance.now() - t;
      await Bun.sleep(100);
      rows.push(`  ${name.padEnd(28)} ${ms.toFixed(1).padStart(8)} ms   healthz max ${probe.worst().toFixed(1).padStart(7)} ms`);
    };
    await step("TLS handshake + greeting", async () => {
      socket = tls.connect({ host: "127.0.0.1", port: inst.ports.imap!, rejectUnauthorized: false });
      until = reader(socket);
      await until(/^\* OK[^\r]*\r\n/m);
    });
    await step("LOGIN", async () => {
      socket.write(`a LOGIN "${state.big.address}" "${state.big.password}"\r\n`);
      await until(/^a (OK|NO|BAD)[^\r]*\r\n/m);
    });
    await step("SELECT INBOX (first)", async () => {
      socket.write("b SELECT INBOX\r\n");
      await until(/^b (OK|NO|BAD)[^\r]*\r\n/m);
    });
    await step("SELECT INBOX (again)", async () => {
      socket.write("c SELECT INBOX\r\n");
      await until(/^c (OK|NO|BAD)[^\r]*\r\n/m);
    });
    socket.destroy();
    console.log(`run ${run}`);
    for (const r of rows) console.log(r);
  } finally {
    probe.stop();
    await inst.stop();
  }
}
process.exit(0);
