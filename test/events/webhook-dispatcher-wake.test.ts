// The dispatcher's wake-ups (events/webhook-dispatcher.ts): a wake for every webhook that arrives while a
// pump is reading the states of the webhooks it was woken for is kept for the next round. It used to be
// read as that round's list after the reads (null: the round failed, "webhook dispatch pump failed"),
// and the look at every webhook it asked for was lost until the sweep, 30 s later. The server runs in
// this process so that the test can wake its dispatcher at that moment: in the same turn as the pump's
// first read, which on PostgreSQL is still waiting for its answer (on SQLite the reads finish within the
// turn, and the window does not exist).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { newId } from "../../src/lib/ids";
import { startInProcess, type InProcess } from "../support/in-process";
import { Receiver } from "../support/webhook-receiver";

let inst: InProcess;
let rx: Receiver;

beforeAll(async () => {
  rx = await Receiver.start();
  inst = await startInProcess();
});
afterAll(async () => {
  rx?.stop();
  await inst?.stop();
});

async function webhook(path: string): Promise<string> {
  const r = await inst.api("/v1/webhooks", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: rx.url(path), event_types: ["message.received"] }),
  });
  expect(r.status).toBe(201);
  return (await r.json()).data.id;
}

test("a wake for every webhook during a pump's reads is kept: the next round looks at every webhook", async () => {
  const named = await webhook("/named");
  const other = await webhook("/other");
  rx.on("/other", () => ({ status: 200 }));
  const dispatcher = inst.server.services.webhookDispatcher;
  await dispatcher.pump(); // settled: nothing is due
  // A delivery for `other` that no wake names (as after a lapsed claim): only a look at every webhook finds it.
  const storage = inst.server.ctx.storage;
  const event = await inst.server.services.events.emit(inst.project, "inbox.created", { note: "seed" });
  await storage.webhookDeliveries.enqueue([
    {
      id: newId(),
      webhookId: other,
      projectId: inst.project,
      eventId: event.id,
      eventType: "message.received",
      orderKey: "",
      maxAttempts: 3,
      nextAttemptAt: 0,
      createdAt: new Date().toISOString(),
    },
  ]);
  expect(rx.of("/other")).toHaveLength(0);
  // The pump for `named` starts on the next turn and reads its state; in that same turn, a wake for all.
  dispatcher.wake([named]);
  setImmediate(() => dispatcher.wake());
  const got = await rx.waitFor((g) => g.filter((x) => x.path === "/other").length > 0, 5_000);
  expect(got).toBe(true);
});
