// A full disk, for real: the data directory lives on a small tmpfs that the test fills with a
// file up to the last byte. Writes must then fail cleanly in their protocol's words, never as a
// 500 or a crash: HTTP 507 insufficient_storage in the envelope, SMTP 452 4.3.1; with space freed,
// everything works again. Mounting needs root (CAP_SYS_ADMIN); elsewhere the file is skipped.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox, sendRaw } from "../support/mail";
import { sqliteOnlyDescribe } from "../support/test-database";
import { needs } from "../support/components";

const mountPoint = mkdtempSync(join(tmpdir(), "inboxd-full-"));
const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=32m,mode=0700", "tmpfs", mountPoint]).exitCode === 0;
const filler = join(mountPoint, "filler");
let inst: Instance;
let inbox: { id: string; address: string };

beforeAll(async () => {
  if (!mounted) return;
  inst = await startInboxd({}, join(mountPoint, "data"));
  inbox = await createInbox(inst);
});
afterAll(async () => {
  if (mounted) {
    await inst?.stop();
    Bun.spawnSync(["umount", mountPoint]);
  }
  rmSync(mountPoint, { recursive: true, force: true });
});

/** Writes `filler` until the file system has not one byte left. */
function fillDisk(): number {
  const fd = openSync(filler, "w");
  let total = 0;
  try {
    for (const size of [1 << 20, 1 << 12, 1]) {
      const chunk = Buffer.alloc(size, 0x61);
      for (;;) {
        try {
          total += writeSync(fd, chunk);
        } catch (e: any) {
          if (e.code !== "ENOSPC") throw e;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return total;
}

const mail = (size: number, subject: string) =>
  `From: a@example.com\r\nTo: ${inbox.address}\r\nSubject: ${subject}\r\n\r\n${"y"
    .repeat(76)
    .concat("\r\n")
    .repeat(Math.ceil(size / 78))}`;
const importMail = (size: number, subject: string) =>
  json(
    inst.api(`/v1/inboxes/${inbox.id}/messages`, {
      method: "POST",
      headers: { "content-type": "message/rfc822" },
      body: mail(size, subject),
    }),
  );

async function smtpReply(size: number, subject: string): Promise<string> {
  try {
    return (await sendRaw(inst, inbox.address, mail(size, subject))).response;
  } catch (e: any) {
    return String(e.response ?? e.message);
  }
}

needs("tmpfs", mounted, "mounting a small tmpfs needs root, CAP_SYS_ADMIN");

(mounted
  ? sqliteOnlyDescribe("fills the data directory's file system; a PostgreSQL node keeps its data on the database server's disk")
  : describe.skip)("disk full", () => {
  test("SMTP: a message for the blob store gets 452 4.3.1, not 451 or a dropped connection", async () => {
    expect(fillDisk()).toBeGreaterThan(1 << 20);
    const reply = await smtpReply(800 * 1024, "big while full");
    expect(reply).toMatch(/^452 4\.3\.1 /);
  });

  test("HTTP: writes answer 201 while the database still has room, then 507 insufficient_storage in the envelope, never 500", async () => {
    const statuses: number[] = [];
    let full: any = null;
    for (let i = 0; i < 200 && !full; i++) {
      const r =
        i % 2
          ? await importMail(64 * 1024, `small ${i}`)
          : await json(inst.api("/v1/api-keys", { method: "POST", json: { name: `k${i}` } }));
      statuses.push(r.status);
      if (r.status === 507) full = r.body;
    }
    expect(statuses.filter((s) => s !== 201 && s !== 507)).toEqual([]);
    expect(full).toMatchObject({ code: "insufficient_storage", details: {} });
    expect(full.message).toContain("storage is full");
    expect(typeof full.request_id).toBe("string");
    // SMTP into SQLite (messages under the inline limit) says what it says for the blob store;
    // a rolled-back write may have left a little room, so the first few may still fit.
    const replies: string[] = [];
    while (replies.length < 100 && !replies.at(-1)?.startsWith("452")) replies.push(await smtpReply(64 * 1024, "small while full"));
    expect(replies.filter((r) => !/^(250|452 4\.3\.1) /.test(r))).toEqual([]);
    expect(replies.at(-1)).toMatch(/^452 4\.3\.1 insufficient system storage/);
    // Reads still work and the process is alive.
    expect((await inst.api(`/v1/inboxes/${inbox.id}`)).status).toBe(200);
  });

  test("with space freed, writes succeed again without a restart", async () => {
    rmSync(filler);
    expect((await importMail(64 * 1024, "after")).status).toBe(201);
    expect(await smtpReply(800 * 1024, "big after")).toMatch(/^250 /);
    expect((await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "after" } }))).status).toBe(201);
    expect((await inst.api("/healthz")).status).toBe(200);
  });
});
