// The data directory is for the user running inboxd only (docs/security.md "Smaller hardening"):
// created 0700, its files (database, -wal, -shm, secret.key, TLS key and certificate, blobs) 0600;
// a directory left world-readable by an older release is tightened at start, with a log line.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startInboxd, type Instance } from "../support/harness";
import { createInbox, sendRaw } from "../support/mail";
import { sqliteOnlyDescribe } from "../support/test-database";

const parent = mkdtempSync(join(tmpdir(), "inboxd-modes-"));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

const mode = (p: string) => statSync(p).mode & 0o777;

/** Every entry under dir with its mode, e.g. ["blobs 700", "inboxd.db 600", …]. */
function modes(dir: string, prefix = ""): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    const line = `${prefix}${n} ${mode(p).toString(8)}`;
    return statSync(p).isDirectory() ? [line, ...modes(p, `${prefix}${n}/`)] : [line];
  });
}

/** A message over the inline limit, so the blob store writes a file. */
async function storeBlob(inst: Instance): Promise<void> {
  const inbox = await createInbox(inst);
  const body = "x".repeat(76).concat("\r\n").repeat(8000);
  await sendRaw(inst, inbox.address, `Subject: big\r\nFrom: a@example.com\r\nTo: ${inbox.address}\r\n\r\n${body}`);
}

sqliteOnlyDescribe("checks the modes of inboxd.db, its -wal and blobs/, which a PostgreSQL node does not have")(
  "data directory modes",
  () => {
    test("a new data directory is 0700 and everything in it owner-only, blobs included", async () => {
      const dir = join(parent, "fresh");
      const inst = await startInboxd({}, dir);
      try {
        await storeBlob(inst);
        expect(mode(dir)).toBe(0o700);
        const all = modes(dir);
        for (const name of ["inboxd.db", "inboxd.db-wal", "inboxd.db-shm", "secret.key", "tls.key", "tls.crt"]) {
          expect(all).toContain(`${name} 600`);
        }
        expect(all.some((l) => /^blobs\/..\/..\/[0-9a-f]{64} 600$/.test(l))).toBe(true);
        // Nothing at all is readable, writable or enterable by group or others.
        expect(all.filter((l) => !/ [67]00$/.test(l))).toEqual([]);
        expect(inst.output()).not.toContain("tightened");
      } finally {
        await inst.stop();
      }
    });

    test("an existing world-readable directory is tightened at start, with one log line naming each change", async () => {
      const dir = join(parent, "old");
      const first = await startInboxd({}, dir);
      await first.stop();
      // What an older release (umask 022) left behind.
      chmodSync(dir, 0o755);
      for (const n of ["inboxd.db", "secret.key", "tls.crt"]) chmodSync(join(dir, n), 0o644);
      chmodSync(join(dir, "blobs"), 0o755);
      const inst = await startInboxd({}, dir);
      try {
        expect(mode(dir)).toBe(0o700);
        for (const n of ["inboxd.db", "secret.key", "tls.crt"]) expect(mode(join(dir, n))).toBe(0o600);
        expect(mode(join(dir, "blobs"))).toBe(0o700);
        const line = inst
          .output()
          .split("\n")
          .find((l) => l.includes("data directory was open to other users"))!;
        expect(line).toContain(`${dir} 0755 -> 0700`);
        expect(line).toContain(`${join(dir, "inboxd.db")} 0644 -> 0600`);
        expect(line).toContain(`${join(dir, "secret.key")} 0644 -> 0600`);
      } finally {
        await inst.stop();
      }
    });
  },
);
