// One slow SMTP client beside smtp-source (issue 14): does a sender that pauses between its commands,
// and so is mid-transaction nearly all the time, slow everybody else's mail? The group commit waits
// a little for deliveries announced at MAIL FROM (mail/ingest.ts); a slow one must not make every
// group wait. `smtp-source -s 8 -l 10240` with -d, then a new connection per message, each once
// without and once with the slow client, the pair repeated.
//   bun bench/slow-sender.ts [--messages N] [--pairs P] [--pause MS]
// Figures are printed, never asserted. Needs Postfix's smtp-source.
import { json, startInboxd } from "../test/support/harness";
import { arg, loadAverage, machineLine, smtpSource } from "./support";

const MESSAGES = arg("messages", 4000);
const PAIRS = arg("pairs", 3);
const PAUSE_MS = arg("pause", 30);

if (!Bun.which("smtp-source")) {
  console.log("smtp-source (Postfix) not installed: skipped");
  process.exit(0);
}
console.log(machineLine());

/** Sends one message after another, pausing PAUSE_MS before MAIL, RCPT, DATA and the body; returns how many. */
async function slowSender(port: number, to: string, stop: { now: boolean }): Promise<number> {
  let sent = 0;
  while (!stop.now) {
    await new Promise<void>((done) => {
      const steps = ["EHLO slow.example\r\n", "MAIL FROM:<slow@example.com>\r\n", `RCPT TO:<${to}>\r\n`, "DATA\r\n"];
      steps.push("Subject: slow\r\n\r\nslow body\r\n.\r\n", "QUIT\r\n");
      let next = 0;
      void Bun.connect({
        hostname: "127.0.0.1",
        port,
        socket: {
          data(s) {
            if (next >= steps.length) return;
            const step = steps[next++]!;
            const paused = next >= 2 && next <= 5;
            setTimeout(() => s.write(step), paused ? PAUSE_MS : 0);
          },
          close: () => done(),
          error: () => done(),
        },
      }).catch(() => done());
    });
    sent++;
  }
  return sent;
}

const inst = await startInboxd({ INBOXD_PLAN: "business" });
try {
  const create = async (name: string) => (await json(inst.api("/v1/inboxes", { method: "POST", json: { name } }))).body.data;
  const bench = await create("bench");
  const slowBox = await create("slow");
  const port = inst.ports.smtp!;
  await smtpSource({ port, to: bench.address, messages: 5000, reuse: true }); // warm-up (JIT)
  for (let pair = 0; pair < PAIRS; pair++) {
    for (const withSlow of [false, true]) {
      const stop = { now: false };
      const slow = withSlow ? slowSender(port, slowBox.address, stop) : Promise.resolve(0);
      const d = await smtpSource({ port, to: bench.address, messages: MESSAGES, reuse: true });
      const fresh = await smtpSource({ port, to: bench.address, messages: MESSAGES, reuse: false });
      stop.now = true;
      const sent = await slow;
      console.log(
        `${withSlow ? `with a slow client (${PAUSE_MS} ms pauses; it sent ${sent})` : "alone"}: ` +
          `-d ${(MESSAGES / d.seconds).toFixed(0)} msg/s, new connection per message ${(MESSAGES / fresh.seconds).toFixed(0)} msg/s`,
      );
    }
  }
  console.log(`load average now ${loadAverage()}`);
} finally {
  await inst.stop();
  inst.cleanup();
}
