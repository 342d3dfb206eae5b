// Replies the kernel cannot take at once: a client that pipelines tens of thousands of commands and
// reads nothing until it has sent them all, a client that reads slowly in small pieces through a
// burst with a message in it, and the same over STARTTLS. Every reply must arrive, whole and in
// order, and the session must go on (the message stored, QUIT answered). Then the idle timeout: a
// silent client is closed, one that keeps talking is not. Real sockets. (Written with a trial of
// the listener on Bun.listen, branch s31-bunlisten, which was not merged: docs/decisions.md.)
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import tls from "node:tls";
import { startInboxd, type Instance } from "../../support/harness";
import { createInbox } from "../../support/mail";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd({ INBOXD_CATCH_ALL: "off" });
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

/** Complete replies (multi-line ones as one) in `text`, in order. */
function replies(text: string): string[] {
  const re = /(?:\d{3}-[^\r\n]*\r\n)*\d{3}(?: [^\r\n]*)?\r\n/g;
  const out: string[] = [];
  let at = 0;
  for (let m = re.exec(text); m !== null && m.index === at; m = re.exec(text)) {
    out.push(m[0]);
    at = re.lastIndex;
  }
  return out;
}

/** Collects what the server sends until it closes the connection. */
function collect(socket: Socket | tls.TLSSocket, onChunk?: () => void): Promise<string> {
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    socket.on("data", (d: Buffer) => {
      chunks.push(d);
      onChunk?.();
    });
    socket.once("error", reject);
    socket.once("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

async function greetedSocket(): Promise<Socket> {
  const socket = connect(inst.ports.smtp!, "127.0.0.1");
  const greeting = await new Promise<string>((resolve, reject) => {
    socket.once("data", (d) => resolve(d.toString()));
    socket.once("error", reject);
  });
  expect(greeting).toMatch(/^220 /);
  return socket;
}

function expectEhloReplies(got: string[], n: number, tag: string): void {
  expect(got.length).toBeGreaterThanOrEqual(n);
  for (let i = 0; i < n; i++) {
    // Each names its own EHLO's client, so a lost, doubled or reordered piece shows.
    const r = got[i]!;
    if (!r.startsWith("250-") || !r.includes(`meet you, ${tag}${i}\r\n`) || !/\r\n250 SIZE \d+\r\n$/.test(r)) {
      throw new Error(`reply ${i} is not the whole EHLO reply for ${tag}${i}: ${JSON.stringify(r.slice(0, 300))}`);
    }
  }
}

describe("replies larger than the socket buffers", () => {
  test("60,000 pipelined EHLOs sent before reading anything: every reply arrives, whole and in order, then 221", async () => {
    const N = 60_000;
    const socket = await greetedSocket();
    socket.pause(); // nothing is read until the whole burst has been sent
    const all = collect(socket);
    let burst = "";
    for (let i = 0; i < N; i++) burst += `EHLO c${i}\r\n`;
    burst += "QUIT\r\n";
    await new Promise<void>((r) => socket.write(burst, () => r()));
    socket.resume();
    const text = await all;
    // Far more than loopback's socket buffers hold: the server had to queue most of it.
    expect(text.length).toBeGreaterThan(10_000_000);
    const got = replies(text);
    expect(got.length).toBe(N + 1);
    expectEhloReplies(got, N, "c");
    expect(got[N]).toBe("221 2.0.0 Bye\r\n");
  }, 60_000);

  test("a slow reader through a burst with a message in it: every reply in order, the message stored byte for byte", async () => {
    const inbox = await createInbox(inst);
    const N = 50_000;
    const socket = await greetedSocket();
    // Reads a piece, then stops reading for a few milliseconds, all through the burst.
    const all = collect(socket, () => {
      socket.pause();
      setTimeout(() => socket.resume(), 3);
    });
    const body = `Subject: slow reader\r\n\r\n${"a line of the body, long enough to matter\r\n".repeat(2000)}`;
    let burst = "";
    for (let i = 0; i < N; i++) burst += `EHLO s${i}\r\n`;
    burst += `MAIL FROM:<slow@example.com>\r\nRCPT TO:<${inbox.address}>\r\nDATA\r\n${body}.\r\n`;
    for (let i = 0; i < N; i++) burst += "NOOP\r\n";
    burst += "QUIT\r\n";
    socket.write(burst);
    const got = replies(await all);
    expect(got.length).toBe(N + 4 + N + 1);
    expectEhloReplies(got, N, "s");
    expect(got.slice(N, N + 3)).toEqual(["250 2.1.0 Accepted\r\n", "250 2.1.5 Accepted\r\n", expect.stringMatching(/^354 /)]);
    const stored = /^250 2\.0\.0 stored ([0-9A-Z]{26})/.exec(got[N + 3]!)?.[1];
    expect(stored).toBeDefined();
    expect(got.slice(N + 4, N + 4 + N).every((r) => r === "250 2.0.0 OK\r\n")).toBe(true);
    expect(got.at(-1)).toBe("221 2.0.0 Bye\r\n");
    const raw = Buffer.from(await (await inst.api(`/v1/messages/${stored}/raw`)).arrayBuffer()).toString("utf8");
    expect(raw.endsWith(body)).toBe(true);
  }, 60_000);

  test("after STARTTLS: 60,000 pipelined EHLOs sent before reading, every reply in order over TLS", async () => {
    const N = 60_000;
    const plain = await greetedSocket();
    plain.write("EHLO before.tls\r\nSTARTTLS\r\n");
    let seen = "";
    await new Promise<void>((resolve) => {
      const onData = (d: Buffer) => {
        seen += d.toString();
        if (/^220 2\.0\.0 /m.test(seen)) {
          plain.off("data", onData);
          resolve();
        }
      };
      plain.on("data", onData);
    });
    const secure = tls.connect({ socket: plain, rejectUnauthorized: false });
    await new Promise<void>((resolve, reject) => {
      secure.once("secureConnect", resolve);
      secure.once("error", reject);
    });
    secure.pause();
    const all = collect(secure);
    let burst = "";
    for (let i = 0; i < N; i++) burst += `EHLO t${i}\r\n`;
    burst += "QUIT\r\n";
    await new Promise<void>((r) => secure.write(burst, () => r()));
    secure.resume();
    const got = replies(await all);
    expect(got.length).toBe(N + 1);
    expectEhloReplies(got, N, "t");
    // Over TLS the EHLO offers no second STARTTLS.
    expect(got[0]).not.toContain("STARTTLS");
    expect(got[N]).toBe("221 2.0.0 Bye\r\n");
  }, 60_000);
});

describe("a client that sends and never reads", () => {
  test("the server stops reading when its replies are not taken, rather than holding them in memory", async () => {
    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${inst.proc.pid}/status`, "utf8"))![1]) * 1024;
    const socket = await greetedSocket();
    socket.pause(); // reads nothing from here on (a stream left flowing would take and drop the replies)
    const before = rss();
    // 60 KB of HELP in asks for ~650 KB of replies out; nothing is read here.
    const chunk = Buffer.from("HELP\r\n".repeat(10_000));
    const cap = 40 * 1024 * 1024;
    let sent = 0;
    while (sent < cap) {
      if (!socket.write(chunk)) {
        // Taken by the kernel within 2 s, or the server has stopped reading.
        const drained = await Promise.race([
          new Promise<boolean>((resolve) => socket.once("drain", () => resolve(true))),
          Bun.sleep(2000).then(() => false),
        ]);
        if (!drained) break;
      }
      sent += chunk.length;
    }
    const grown = rss() - before;
    socket.destroy();
    // Held before: every reply (10.8 bytes per byte sent), 2.3 GB after 158 MB. Now: the input it
    // read ahead (8 MB at most), 1 MB of replies and the kernel's buffers.
    expect(sent).toBeLessThan(cap);
    expect(grown).toBeLessThan(150 * 1024 * 1024);
  }, 60_000);
});

describe("idle", () => {
  test("INBOXD_SMTP_IDLE_TIMEOUT: a silent client gets 421 4.4.2 and is closed; one that keeps talking is not", async () => {
    const idle = await startInboxd({ INBOXD_SMTP_IDLE_TIMEOUT: "1" });
    try {
      const quiet = connect(idle.ports.smtp!, "127.0.0.1");
      const talker = connect(idle.ports.smtp!, "127.0.0.1");
      const quietText = collect(quiet);
      let talkerText = "";
      talker.on("data", (d) => {
        talkerText += d.toString();
      });
      // A NOOP every 300 ms until the quiet one has been closed.
      let closed = false;
      void quietText.finally(() => {
        closed = true;
      });
      while (!closed) {
        talker.write("NOOP\r\n");
        await Bun.sleep(300);
      }
      const q = replies(await quietText);
      expect(q.length).toBe(2);
      expect(q[0]).toMatch(/^220 /);
      expect(q[1]).toMatch(/^421 4\.4\.2 .*timeout exceeded\r\n$/);
      talker.write("QUIT\r\n");
      await new Promise<void>((r) => talker.once("close", () => r()));
      const got = replies(talkerText);
      expect(got.at(-1)).toBe("221 2.0.0 Bye\r\n");
      expect(got.some((r) => r.startsWith("421"))).toBe(false);
    } finally {
      await idle.stop();
      idle.cleanup();
    }
  }, 60_000);
});
