// Operations: the log lines of an SMTP transaction (accepted and refused), a webhook attempt and an
// IMAP log-in; the Prometheus series for them; /readyz and /healthz; the JSON log format; an
// unwritable data directory stopping start-up with one line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox, SmtpDialog, code, transport } from "../support/mail";
import { imapflow, newBox } from "../support/imap";
import { Receiver, registerWebhook } from "../support/webhook-receiver";
import { databaseEnv } from "../support/test-database";
import { inboxdCommand } from "../support/command";

let inst: Instance;
let rx: Receiver;

beforeAll(async () => {
  rx = await Receiver.start();
  inst = await startInboxd({ INBOXD_CATCH_ALL: "off", INBOXD_WEBHOOK_BACKOFF_BASE_MS: "60000" });
});
afterAll(async () => {
  rx.stop();
  await inst.stop();
  inst.cleanup();
});

/** Waits until the process output has a line matching re (lines arrive asynchronously). */
async function line(re: RegExp, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = inst
      .output()
      .split("\n")
      .find((l) => re.test(l));
    if (hit) return hit;
    if (Date.now() > deadline) throw new Error(`no line matching ${re} in:\n${inst.output()}`);
    await Bun.sleep(25);
  }
}

async function metrics(): Promise<string> {
  const r = await fetch(`${inst.url}/metrics`);
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toStartWith("text/plain");
  return r.text();
}

/** The value of one series (exact labels as written), or null when absent. */
function value(text: string, series: string): number | null {
  const l = text.split("\n").find((x) => x.startsWith(`${series} `));
  return l ? Number(l.slice(series.length + 1)) : null;
}

describe("readiness and health", () => {
  test("/readyz is 200 once serving, with its checks; /healthz checks the database", async () => {
    const ready = await json(fetch(`${inst.url}/readyz`));
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: "ok", checks: { listeners: "ok", database: "ok" } });
    const health = await json(fetch(`${inst.url}/healthz`));
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: "ok", checks: { database: "ok" } });
    const doc = await json(fetch(`${inst.url}/openapi.json`));
    expect(doc.body.paths["/readyz"].get.responses["503"]).toBeDefined();
  });
});

describe("SMTP", () => {
  test("a delivery logs one line with sender, recipients, size, code and message id; a 550 refusal logs too", async () => {
    const inbox = await createInbox(inst);
    const t = transport(inst);
    let info: any;
    try {
      info = await t.sendMail({ from: "ops-sender@example.com", to: inbox.address, subject: "ops line", text: "hello" });
    } finally {
      t.close();
    }
    const id = /stored (\S+)/.exec(info.response)![1]!;
    const l = await line(new RegExp(`INFO\\s+smtp transaction .*ids=${id}`));
    expect(l).toMatch(/^\d{4}-\d\d-\d\dT\S+Z INFO {2}smtp transaction /);
    expect(l).toContain("from=ops-sender@example.com");
    expect(l).toContain(`to=${inbox.address}`);
    expect(l).toContain("code=250");
    expect(l).toMatch(/ size=\d+ /);

    const { dialog: d } = await SmtpDialog.open(inst.ports.smtp!);
    try {
      await d.cmd("EHLO ops.test");
      expect(code(await d.cmd("MAIL FROM:<refused-sender@example.com>"))).toBe(250);
      expect(code(await d.cmd("RCPT TO:<nobody-here@inboxd.test>"))).toBe(550);
      await d.cmd("QUIT");
    } finally {
      d.close();
    }
    const refused = await line(/smtp recipient refused .*to=nobody-here@inboxd\.test/);
    expect(refused).toContain("from=refused-sender@example.com");
    expect(refused).toContain("code=550");

    const m = await metrics();
    expect(value(m, 'inboxd_smtp_transactions_total{result="accepted"}')).toBeGreaterThanOrEqual(1);
    expect(value(m, 'inboxd_smtp_refusals_total{stage="rcpt",code="550"}')).toBe(1);
    expect(value(m, 'inboxd_connections_total{proto="smtp"}')).toBeGreaterThanOrEqual(2);
    expect(value(m, "inboxd_smtp_received_bytes_total")).toBeGreaterThan(0);
    expect(value(m, "inboxd_smtp_delivery_duration_seconds_count")).toBeGreaterThanOrEqual(1);
    expect(value(m, "inboxd_messages_stored")).toBeGreaterThanOrEqual(1);
    expect(value(m, "inboxd_database_size_bytes")).toBeGreaterThan(0);
    expect(m).toContain("inboxd_process_resident_memory_bytes");
    // The HTTP series keep their names.
    expect(m).toContain("inboxd_http_requests_total{");
  });
});

describe("webhooks", () => {
  test("each attempt logs host, status, duration and attempt; the series count results and the outbox", async () => {
    const inbox = await createInbox(inst);
    await registerWebhook(inst, { url: rx.url("/ops-ok?token=SECRET-IN-QUERY"), inbox_id: inbox.id });
    const failing = await createInbox(inst);
    await registerWebhook(inst, { url: rx.url("/ops-fail"), inbox_id: failing.id });
    rx.on("/ops-fail", () => ({ status: 500, body: "no" }));
    const t = transport(inst);
    try {
      await t.sendMail({ from: "a@example.com", to: inbox.address, subject: "hook", text: "x" });
      await t.sendMail({ from: "a@example.com", to: failing.address, subject: "hook", text: "x" });
    } finally {
      t.close();
    }
    const ok = await line(/INFO\s+webhook attempt .*status=2\d\d/);
    expect(ok).toContain(`host=127.0.0.1:${new URL(rx.url("/")).port}`);
    expect(ok).toContain("attempt=1");
    expect(ok).toMatch(/ ms=\d+/);
    expect(ok).toContain("result=success");
    const failed = await line(/WARN\s+webhook attempt .*status=500/);
    expect(failed).toContain("result=failure");
    expect(failed).toMatch(/next=\d{4}-/);
    expect(inst.output()).not.toContain("SECRET-IN-QUERY");

    const m = await metrics();
    expect(value(m, 'inboxd_webhook_attempts_total{result="success"}')).toBeGreaterThanOrEqual(1);
    expect(value(m, 'inboxd_webhook_attempts_total{result="failure"}')).toBeGreaterThanOrEqual(1);
    expect(value(m, "inboxd_webhook_attempt_duration_seconds_count")).toBeGreaterThanOrEqual(2);
    // The failed delivery waits a minute for its retry (INBOXD_WEBHOOK_BACKOFF_BASE_MS).
    expect(value(m, "inboxd_webhook_deliveries_pending")).toBeGreaterThanOrEqual(1);
  });
});

describe("IMAP log-ins", () => {
  test("a good and a bad log-in each log a line; the password never appears", async () => {
    const box = await newBox(inst);
    const good = imapflow(inst, box);
    await good.connect();
    await good.logout();
    const bad = imapflow(inst, { ...box, password: "wrong-password-xyz" });
    await bad.connect().catch(() => {});
    bad.close();
    expect(await line(new RegExp(`INFO\\s+imap login .*user=${box.address.replace(/[.+]/g, "\\$&")} result=ok`))).toContain("client=");
    expect(await line(/WARN\s+imap login failed .*result=invalid/)).toContain(`user=${box.address}`);
    expect(inst.output()).not.toContain(box.password);
    expect(inst.output()).not.toContain("wrong-password-xyz");
    const m = await metrics();
    expect(value(m, 'inboxd_logins_total{proto="imap",result="ok"}')).toBe(1);
    expect(value(m, 'inboxd_logins_total{proto="imap",result="failed"}')).toBe(1);
  });
});

describe("log settings", () => {
  test("INBOXD_LOG_FORMAT=json writes one JSON record per line, ready and the shutdown included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "inboxd-ops-"));
    const p = Bun.spawn([...inboxdCommand(), "serve"], {
      // A data directory of its own, so a database of its own too (on PostgreSQL inst's database
      // would refuse this node: its new secret.key is not the key that database was sealed with).
      env: { ...process.env, ...inst.env, ...(await databaseEnv(dir)), INBOXD_DATA_DIR: dir, INBOXD_LOG_FORMAT: "json" },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      let out = "";
      const decoder = new TextDecoder();
      const reader = (p.stdout as ReadableStream<Uint8Array>).getReader();
      const deadline = Date.now() + 20_000;
      while (!out.includes('"msg":"ready"') && Date.now() < deadline) {
        const { value: chunk, done } = await reader.read();
        if (done) break;
        out += decoder.decode(chunk);
      }
      const lines = out.trim().split("\n");
      for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
      const records = lines.map((l) => JSON.parse(l));
      expect(records.at(-1)).toMatchObject({ level: 30, msg: "ready" });
      expect(records.some((r) => /^listening http /.test(r.msg))).toBe(true);
      // What a stop writes is JSON too (the signal line was a plain one).
      p.kill("SIGTERM");
      for (;;) {
        const { value: chunk, done } = await reader.read();
        if (done) break;
        out += decoder.decode(chunk);
      }
      reader.releaseLock();
      const all = out.trim().split("\n");
      expect(all.filter((l) => !l.startsWith("{"))).toEqual([]);
      expect(all.map((l) => JSON.parse(l).msg)).toContain("SIGTERM received, shutting down");
      expect(all.map((l) => JSON.parse(l).msg).at(-1)).toBe("stopped");
    } finally {
      p.kill("SIGTERM");
      await p.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  test("a bad INBOXD_LOG_LEVEL stops start-up with one line naming it", async () => {
    const p = Bun.spawn([...inboxdCommand(), "serve"], {
      env: { ...process.env, INBOXD_LOG_LEVEL: "loud" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const err = await new Response(p.stderr).text();
    expect(await p.exited).toBe(2);
    expect(err.trim()).toStartWith("inboxd: INBOXD_LOG_LEVEL must be one of");
    expect(err.trim().split("\n")).toHaveLength(1);
  });

  test("a data directory that cannot be created stops start-up with one line, no stack trace", async () => {
    const dir = mkdtempSync(join(tmpdir(), "inboxd-ops-"));
    const file = join(dir, "not-a-dir");
    writeFileSync(file, "x");
    try {
      const p = Bun.spawn([...inboxdCommand(), "serve"], {
        env: { ...process.env, INBOXD_DATA_DIR: join(file, "data"), INBOXD_HTTP_PORT: "0", INBOXD_SMTP_PORT: "0" },
        stdout: "pipe",
        stderr: "pipe",
      });
      const err = await new Response(p.stderr).text();
      expect(await p.exited).not.toBe(0);
      expect(err.trim().split("\n")).toHaveLength(1);
      expect(err).toContain("INBOXD_DATA_DIR");
      expect(err).not.toContain("    at ");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
