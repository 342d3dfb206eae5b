// CPU per message of parseMessage (issue 14), in a tight loop on one thread: today's code against a
// baseline revision read from git at run time (src/mime of that revision, nothing copied into the
// tree), and today's code with the fast path bypassed (parseMessageWithMailparser). Two message sets:
// the 10 KB message Postfix's smtp-source sends (one text part, lines of X) and bench/corpus.ts
// (70 % multipart/alternative with HTML, 30 % plain text). Also checks that every message parses to
// the same ParsedMessage as at the baseline, and extractCodes alone, old against new.
//   bun bench/parse-cpu.ts [--baseline REV] [--rounds 7] [--messages 300]
// Prints figures (the best round of each, the least disturbed by other load); asserts nothing.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { extractCodes } from "../src/mime/codes";
import { parseMessage, parseMessageWithMailparser } from "../src/mime/parse";
import type { ParsedMessage } from "../src/mime/types";
import { corpusMessage } from "./corpus";
import { arg, machineLine } from "./support";

const ROOT = resolve(import.meta.dir, "..");
const baselineArg = process.argv.indexOf("--baseline");
/** The last commit before the issue-14 parse work. */
const BASELINE = baselineArg > 0 ? (process.argv[baselineArg + 1] ?? "024a096") : "024a096";
const ROUNDS = arg("rounds", 7);
const MESSAGES = arg("messages", 300);

type Parse = (raw: Uint8Array) => Promise<ParsedMessage>;
type Extract = (subject: string, text: string | null, html: string | null) => string[];

/** src/mime of a revision, written to a temporary folder and imported. */
async function baseline(rev: string): Promise<{ parseMessage: Parse; extractCodes: Extract; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), "inboxd-parse-baseline-"));
  const files = execFileSync("git", ["ls-tree", "--name-only", rev, "src/mime/"], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  for (const path of files) {
    const src = execFileSync("git", ["show", `${rev}:${path}`], { cwd: ROOT, encoding: "utf8", stdio: "pipe" });
    writeFileSync(join(dir, path.slice("src/mime/".length)), src);
  }
  // Its imports of node_modules resolve from the repository.
  for (const f of readdirSync(dir))
    execFileSync("sed", [
      "-i",
      's#from "\\(libmime\\|mailparser\\|entities\\|htmlparser2\\|sanitize-html\\|postcss-safe-parser\\|known-css-properties\\)#from "' +
        ROOT +
        "/node_modules/\\1#",
      join(dir, f),
    ]);
  const parse = await import(join(dir, "parse.ts"));
  const codes = await import(join(dir, "codes.ts"));
  return {
    parseMessage: parse.parseMessage,
    extractCodes: codes.extractCodes,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The message `smtp-source -l 10240` sends: a few headers and numbered lines of X. */
function smtpSourceMessage(): Uint8Array {
  let body = "";
  for (let i = 1; body.length < 10240; i++) body += `${i}`.padEnd(78, "X") + "\r\n";
  const head =
    "From: <a@b.example>\r\nTo: <x@y.example>\r\nDate: Tue, 24 Nov 2026 15:29:16 +0000 (UTC)\r\nMessage-Id: <6071.0003.0000@vm>\r\n\r\n";
  return new TextEncoder().encode(head + body);
}

/** Best round's CPU µs per message of f over the messages. */
async function cpu(messages: Uint8Array[], f: (raw: Uint8Array) => unknown): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  const reps = Math.max(1, Math.round(2000 / messages.length));
  for (let r = 0; r <= ROUNDS; r++) {
    const c0 = process.cpuUsage();
    for (let k = 0; k < reps; k++) for (const m of messages) await f(m);
    const c = process.cpuUsage(c0);
    // Round 0 warms up.
    if (r > 0) best = Math.min(best, (c.user + c.system) / (reps * messages.length));
  }
  return best;
}

const base = await baseline(BASELINE);
const sets: Array<[string, Uint8Array[]]> = [
  ["smtp-source 10 KB", [smtpSourceMessage()]],
  ["bench/corpus.ts", Array.from({ length: MESSAGES }, (_, i) => new TextEncoder().encode(corpusMessage(i, `inbox${i}@example.test`)))],
];

console.log(`parseMessage CPU per message, baseline ${BASELINE}; best of ${ROUNDS} rounds`);
console.log(machineLine());
for (const [name, messages] of sets) {
  let same = 0;
  for (const m of messages) if (Bun.deepEquals(await parseMessage(m), await base.parseMessage(m), true)) same++;
  const before = await cpu(messages, base.parseMessage);
  const after = await cpu(messages, parseMessage);
  const mailparserPath = await cpu(messages, parseMessageWithMailparser);
  const parsed = await Promise.all(messages.map((m) => parseMessage(m)));
  const bodies = parsed.map((p) => [p.subject, p.text, p.html] as const);
  let i = 0;
  const codesBefore = await cpu(messages, () => base.extractCodes(...bodies[i++ % bodies.length]!));
  i = 0;
  const codesAfter = await cpu(messages, () => extractCodes(...bodies[i++ % bodies.length]!));
  const codesSame = bodies.filter((b) => JSON.stringify(extractCodes(...b)) === JSON.stringify(base.extractCodes(...b))).length;
  console.log(`\n${name} (${messages.length} messages): same ParsedMessage as baseline ${same}/${messages.length}`);
  console.log(
    `  parseMessage  baseline ${before.toFixed(1)} µs   now ${after.toFixed(1)} µs   now without the fast path ${mailparserPath.toFixed(1)} µs`,
  );
  console.log(
    `  extractCodes  baseline ${codesBefore.toFixed(1)} µs   now ${codesAfter.toFixed(1)} µs   same codes ${codesSame}/${bodies.length}`,
  );
}
base.cleanup();
