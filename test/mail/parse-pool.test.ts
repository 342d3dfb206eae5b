// The parse pool (src/mail/parse-pool.ts) with a real worker thread: messages handed over while a
// batch is in the worker all come back parsed as the main thread parses them, with the blob key;
// and a worker that dies with a batch in flight and more waiting loses none of them (they are
// parsed on the main thread), so the delivery that waits for them is never left hanging. Small
// mail stays on the event loop unless mailparser could take seconds over it.
import { afterEach, expect, test } from "bun:test";
import { ParsePool } from "../../src/mail/parse-pool";
import { parseMessage } from "../../src/mime/parse";
import { sha256Hex } from "../../src/storage";

const enc = new TextEncoder();
const message = (i: number) =>
  enc.encode(
    `From: Ann <ann@example.com>\r\nTo: box@example.com\r\nSubject: batch ${i}\r\nMessage-ID: <${i}@example.com>\r\n\r\n` +
      `Your code is ${480000 + i}. https://example.com/${i}\r\n`,
  );

let pool: ParsePool | null = null;
afterEach(() => {
  pool?.close();
  pool = null;
});

test("messages handed over at once are parsed in the worker as on the main thread, each with its sha256", async () => {
  pool = new ParsePool(1, 0);
  const raws = Array.from({ length: 20 }, (_, i) => message(i));
  const results = await Promise.all(raws.map((r) => pool!.parse(r)));
  for (let i = 0; i < raws.length; i++) {
    const { parsed, sha256 } = results[i]!;
    expect(sha256).toBe(sha256Hex(raws[i]!));
    expect(parsed).toEqual(await parseMessage(raws[i]!));
    expect(parsed.codes).toEqual([String(480000 + i)]);
  }
  // The caller's bytes are still whole (a copy went to the worker, not the caller's buffer).
  expect(raws[3]!.byteLength).toBe(message(3).byteLength);
});

test("a worker that dies with a batch in flight and more waiting: every message is still parsed", async () => {
  pool = new ParsePool(1, 0);
  await pool.parse(message(0)); // the worker is up
  const raws = Array.from({ length: 12 }, (_, i) => message(i + 1));
  const pending = raws.map((r) => pool!.parse(r));
  // What a crash looks like to the pool: the thread ends with work outstanding.
  for (const slot of (pool as any).slots) slot.worker.terminate();
  const results = await Promise.all(pending);
  results.forEach(({ parsed }, i) => {
    expect(parsed.subject).toBe(`batch ${i + 1}`);
    expect(parsed.codes).toEqual([String(480001 + i)]);
  });
  // And the next message is parsed too, with or without a replacement worker yet.
  expect((await pool.parse(message(99))).parsed.subject).toBe("batch 99");
});

/** A small multipart/mixed message (an attachment: mailparser's path) whose text part is quoted-printable. */
const withAttachment = (text: string) =>
  enc.encode(
    "From: ann@example.com\r\nTo: box@example.com\r\nSubject: with a file\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n" +
      `--x\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n${text}\r\n` +
      "--x\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=a.bin\r\n\r\nabc\r\n--x--\r\n",
  );

test("small mail is parsed on the event loop, but one of the shape mailparser takes seconds over goes to the worker", async () => {
  pool = new ParsePool(1, 64 * 1024);
  // Parsed here, by the fast path and by mailparser: no blob key comes back (only a worker computes it).
  for (const raw of [message(7), withAttachment("Your code is 731904.")]) {
    const here = await pool.parse(raw);
    expect(here.sha256).toBeNull();
    expect(here.parsed).toEqual(await parseMessage(raw));
  }
  // Taken by the worker although far below the inline limit: libqp's trailing-blank expression
  // retries from every blank of a run inside a line (20,000 blanks ~0.5 s, 60,000 ~5 s).
  const slow = withAttachment(`Your code is 731904.${" ".repeat(20_000)}.`);
  const there = await pool.parse(slow);
  expect(there.sha256).toBe(sha256Hex(slow));
  expect(there.parsed.text).toBe(`Your code is 731904.${" ".repeat(20_000)}.`);
  expect(there.parsed.attachments.map((a) => a.filename)).toEqual(["a.bin"]);
  expect(there.parsed.codes).toEqual(["731904"]);
});
