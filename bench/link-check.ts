// Link check benchmark (issue 22): one mail with N links to a local server whose answers take
// --delay ms, checked through GET /v1/messages/{id}/analysis/links: the cold check (every URL
// requested, 5 at a time per message), the cached one, and GET /v1/messages/{id} latency while a
// cold check of another such mail is running (link checks must not hold up other requests).
//   bun bench/link-check.ts [--links N] [--delay MS] [--samples S]
// Prints figures; asserts nothing.
import { json, startInboxd } from "../test/support/harness";
import { createInbox, transport } from "../test/support/mail";
import { startHttpFixture } from "../test/support/http-fixture";
import { arg, machineLine, pct } from "./support";

const LINKS = arg("links", 200);
const DELAY = arg("delay", 20);
const SAMPLES = arg("samples", 200);

const site = await startHttpFixture();
for (let i = 0; i < LINKS * 2; i++) {
  site.route(`/p${i}`, (_req, res) => void setTimeout(() => res.writeHead(200).end(), DELAY));
}
const inst = await startInboxd({ INBOXD_ALLOW_INTERNAL_HTTP: "on" });
try {
  const box = await createInbox(inst, { name: "bench links" });
  const send = async (from: number) => {
    const t = transport(inst);
    const text = Array.from({ length: LINKS }, (_, i) => `${site.origin}/p${from + i}`).join("\n");
    const info = await t.sendMail({ from: "b@bench.example", to: box.address, subject: "links", text });
    t.close();
    return /stored ([0-9A-Z]{26})/.exec(info.response)![1]!;
  };
  const first = await send(0);
  const second = await send(LINKS);

  let t0 = performance.now();
  const cold = await json(inst.api(`/v1/messages/${first}/analysis/links`));
  const coldMs = performance.now() - t0;
  t0 = performance.now();
  await json(inst.api(`/v1/messages/${first}/analysis/links`));
  const warmMs = performance.now() - t0;

  const samples: number[] = [];
  let running = true;
  const check = json(inst.api(`/v1/messages/${second}/analysis/links`)).finally(() => {
    running = false;
  });
  while (running && samples.length < SAMPLES) {
    const s = performance.now();
    await json(inst.api(`/v1/messages/${first}`));
    samples.push(performance.now() - s);
  }
  await check;

  console.log(machineLine());
  console.log(`${LINKS} links, server delay ${DELAY} ms: all ok ${cold.body.data.links.every((l: any) => l.ok)}`);
  console.log(`cold check ${coldMs.toFixed(0)} ms (${((LINKS * 1000) / coldMs).toFixed(0)} URLs/s), cached ${warmMs.toFixed(1)} ms`);
  console.log(
    `GET /v1/messages/{id} during a cold check: ${samples.length} requests, p50 ${pct(samples, 50).toFixed(2)} ms, p99 ${pct(samples, 99).toFixed(2)} ms`,
  );
} finally {
  await inst.stop();
  inst.cleanup();
  await site.close();
}
