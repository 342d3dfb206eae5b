// The dispatcher at shutdown (events/webhook-dispatcher.ts, server.ts): the server stops it after its
// listeners and before its storage closes. A try in flight is cut short (its claim lapses; the try is
// made again after the restart: webhooks-retry.test.ts), and nothing of the dispatcher runs after the
// storage is closed. It used to be left running: a server stopped in a process that lives on (this
// one) kept its timers and in-flight tries, which then failed on the closed database ("webhook
// dispatch pump failed", "webhook delivery outcomes not recorded") while other tests ran.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startInProcess, type InProcess } from "../support/in-process";
import { sendRaw } from "../support/pop3-client";
import { Receiver } from "../support/webhook-receiver";

let inst: InProcess;
let rx: Receiver;

beforeAll(async () => {
  rx = await Receiver.start();
  inst = await startInProcess();
});
afterAll(() => rx?.stop());

test("stopping the server cuts the try in flight short and leaves no pump, timer or try behind", async () => {
  rx.on("/held", () => ({ status: 200, hang: true }));
  const r = await inst.api("/v1/webhooks", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: rx.url("/held"), event_types: ["message.received"] }),
  });
  expect(r.status).toBe(201);
  // To the catch-all inbox: any address.
  await sendRaw(inst.server.ctx.ports.smtp, "anyone@example.com", "Subject: held\r\n\r\nbody\r\n");
  await rx.waitFor((g) => g.some((x) => x.path === "/held"), 10_000);
  expect(rx.cutShort).toHaveLength(0);

  await inst.stop();
  // The endpoint sees the try end: the stopped server no longer holds it open.
  const cut = await rx.waitFor((g) => g.length > 0 && rx.cutShort.length > 0, 5_000);
  expect(cut).toBe(true);
  expect(rx.cutShort.map((x) => x.path)).toEqual(["/held"]);
  // Stopped means stopped: a wake or a sweep claims nothing and sends nothing.
  const dispatcher = inst.server.services.webhookDispatcher;
  dispatcher.wake();
  await dispatcher.pump();
  await Bun.sleep(100);
  expect(rx.of("/held")).toHaveLength(1);
});
