// A tiny authoritative DNS responder for tests (UDP on 127.0.0.1, port 0). It answers MX, TXT and A
// questions from a table the test edits while the server runs; a name absent from the table is
// NXDOMAIN, a known name without that type is an empty NOERROR (what real servers do).
import dgram from "node:dgram";

export type Rr = { type: "MX"; priority: number; exchange: string } | { type: "TXT"; value: string } | { type: "A"; address: string };

export interface TestDns {
  port: number;
  /** name (lower case, no trailing dot) → records. Mutate freely. */
  zone: Map<string, Rr[]>;
  set(name: string, ...rrs: Rr[]): void;
  /** Publishes every record a custom domain asks for (its `records`: MX and TXT), exactly as shown. */
  publishDomain(d: { records: Array<{ type: string; host: string; value: string; priority?: number }> }): void;
  queries: { name: string; type: number }[];
  /** Answers for this name wait until the returned function is called (a slow DNS server, on demand). */
  hold(name: string): () => void;
  close(): Promise<void>;
}

const TYPE = { A: 1, MX: 15, TXT: 16 } as const;

function encodeName(name: string): Buffer {
  const parts = name
    .split(".")
    .filter(Boolean)
    .map((l) => {
      const b = Buffer.from(l, "ascii");
      return Buffer.concat([Buffer.from([b.length]), b]);
    });
  return Buffer.concat([...parts, Buffer.from([0])]);
}

function rdata(rr: Rr): Buffer {
  switch (rr.type) {
    case "A":
      return Buffer.from(rr.address.split(".").map(Number));
    case "MX": {
      const p = Buffer.alloc(2);
      p.writeUInt16BE(rr.priority);
      return Buffer.concat([p, encodeName(rr.exchange)]);
    }
    case "TXT": {
      // Long values travel as several character-strings of at most 255 bytes.
      const v = Buffer.from(rr.value, "utf8");
      const chunks: Buffer[] = [];
      for (let i = 0; i < v.length || i === 0; i += 255) {
        const c = v.subarray(i, i + 255);
        chunks.push(Buffer.from([c.length]), c);
      }
      return Buffer.concat(chunks);
    }
  }
}

function parseQuestion(msg: Buffer): { name: string; type: number; end: number } {
  let off = 12;
  const labels: string[] = [];
  while (msg[off]! !== 0) {
    const len = msg[off]!;
    labels.push(msg.subarray(off + 1, off + 1 + len).toString("ascii"));
    off += len + 1;
  }
  off += 1;
  return { name: labels.join(".").toLowerCase(), type: msg.readUInt16BE(off), end: off + 4 };
}

export async function startTestDns(): Promise<TestDns> {
  const sock = dgram.createSocket("udp4");
  const zone = new Map<string, Rr[]>();
  const queries: { name: string; type: number }[] = [];
  const held = new Map<string, Array<() => void>>();
  sock.on("message", (msg, rinfo) => {
    try {
      const q = parseQuestion(msg);
      queries.push({ name: q.name, type: q.type });
      const rrs = zone.get(q.name);
      const answers = (rrs ?? []).filter((r) => TYPE[r.type] === q.type);
      const header = Buffer.alloc(12);
      msg.copy(header, 0, 0, 2); // id
      const rcode = rrs === undefined ? 3 : 0;
      header.writeUInt16BE(0x8000 | 0x0400 | (msg.readUInt16BE(2) & 0x0100) | rcode, 2); // QR, AA, RD echoed
      header.writeUInt16BE(1, 4);
      header.writeUInt16BE(answers.length, 6);
      const body = answers.map((rr) => {
        const rd = rdata(rr);
        const fixed = Buffer.alloc(10);
        fixed.writeUInt16BE(TYPE[rr.type], 0);
        fixed.writeUInt16BE(1, 2);
        fixed.writeUInt32BE(1, 4); // TTL 1 s: tests change the zone between lookups
        fixed.writeUInt16BE(rd.length, 8);
        return Buffer.concat([Buffer.from([0xc0, 0x0c]), fixed, rd]);
      });
      const answer = () => sock.send(Buffer.concat([header, msg.subarray(12, q.end), ...body]), rinfo.port, rinfo.address);
      const waiting = held.get(q.name);
      if (waiting) waiting.push(answer);
      else answer();
    } catch {
      // A malformed query gets no answer, like a real server under garbage.
    }
  });
  await new Promise<void>((resolve) => sock.bind(0, "127.0.0.1", () => resolve()));
  const set = (name: string, ...rrs: Rr[]) => void zone.set(name.toLowerCase().replace(/\.$/, ""), rrs);
  return {
    port: sock.address().port,
    zone,
    queries,
    set,
    publishDomain(d) {
      const byHost = new Map<string, Rr[]>();
      for (const r of d.records) {
        const list = byHost.get(r.host) ?? [];
        list.push(r.type === "MX" ? { type: "MX", priority: r.priority ?? 10, exchange: r.value } : { type: "TXT", value: r.value });
        byHost.set(r.host, list);
      }
      for (const [host, rrs] of byHost) set(host, ...rrs);
    },
    hold: (name) => {
      const key = name.toLowerCase();
      held.set(key, []);
      return () => {
        for (const answer of held.get(key) ?? []) answer();
        held.delete(key);
      };
    },
    close: () => new Promise<void>((resolve) => sock.close(() => resolve())),
  };
}
