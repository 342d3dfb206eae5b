// Worker-thread entry of the parse pool (src/mail/parse-pool.ts): parses raw messages off the
// event loop. Must stay an entrypoint of `bun build --compile` (package.json "build"). It also runs
// callers' code patterns for src/mail/pattern-runner.ts (a worker of its own, terminated when a
// pattern runs too long), so that no second entrypoint is needed.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseMessage } from "../mime/parse";
import { type CompiledPattern, matchPattern } from "../mime/pattern";
import type { ParseAnswer, ParseJob } from "./parse-pool";

declare const self: Worker;

type PatternJob = { id: number; pattern: CompiledPattern; text: string };

/**
 * After a parse at least this large, a full collection runs at once. mailparser leaves ~130 MB of
 * garbage per 24 MB message (decoded chunks, strings), and back-to-back parses piled it up to
 * ~0.5 GB before the collector ran; the collection costs this thread ~50 ms against a ~600 ms
 * parse, and never blocks the event loop (each thread has its own heap).
 */
const COLLECT_AFTER = 4 * 1024 * 1024;

self.onmessage = async (e: MessageEvent<PatternJob | ParseJob[]>) => {
  if (!Array.isArray(e.data)) {
    const { id, pattern, text } = e.data;
    try {
      self.postMessage({ id, matches: matchPattern(pattern, text) });
    } catch (err) {
      self.postMessage({ id, error: String((err as Error)?.message ?? err) });
    }
    return;
  }
  // A batch from the parse pool: one answer for all of it (one wake of the event loop).
  const answers: ParseAnswer[] = [];
  const transfer = new Set<ArrayBuffer>();
  let size = 0;
  for (const job of e.data) {
    try {
      // A spooled message (src/mail/incoming.ts) is read here, so the main thread never holds it.
      // Its sha256 (the blob key) is taken here too, off the event loop, as for bytes in memory.
      const raw = "path" in job ? readFileSync(job.path) : job.raw;
      size += raw.byteLength;
      const sha256 = createHash("sha256").update(raw).digest("hex");
      const parsed = await parseMessage(raw);
      for (const a of parsed.attachments) transfer.add(a.content.buffer as ArrayBuffer);
      answers.push({ id: job.id, parsed, sha256 });
    } catch (err) {
      answers.push({ id: job.id, error: String((err as Error)?.message ?? err) });
    }
  }
  self.postMessage(answers, [...transfer]);
  if (size >= COLLECT_AFTER) Bun.gc(true);
};

// Loaded (mailparser and all): the pattern runner starts its clocks only now, so a cold start is
// not counted against a pattern's time limit. The parse pool ignores this message (it has no id).
self.postMessage({ ready: true });
