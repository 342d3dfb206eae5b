// Worker-thread entry of the parse pool (src/mail/parse-pool.ts): parses raw messages off the
// event loop. Must stay an entrypoint of `bun build --compile` (package.json "build"). It also runs
// callers' code patterns for src/mail/pattern-runner.ts (a worker of its own, terminated when a
// pattern runs too long), so that no second entrypoint is needed.
import { parseMessage } from "../mime/parse";
import { type CompiledPattern, matchPattern } from "../mime/pattern";

declare const self: Worker;

type Job = { id: number; raw: Uint8Array } | { id: number; pattern: CompiledPattern; text: string };

self.onmessage = async (e: MessageEvent<Job>) => {
  if ("pattern" in e.data) {
    const { id, pattern, text } = e.data;
    try {
      self.postMessage({ id, matches: matchPattern(pattern, text) });
    } catch (err) {
      self.postMessage({ id, error: String((err as Error)?.message ?? err) });
    }
    return;
  }
  const { id, raw } = e.data;
  try {
    const parsed = await parseMessage(raw);
    self.postMessage({ id, parsed }, parsed.attachments.map((a) => a.content.buffer as ArrayBuffer).filter(unique()));
  } catch (err) {
    self.postMessage({ id, error: String((err as Error)?.message ?? err) });
  }
};

// Loaded (mailparser and all): the pattern runner starts its clocks only now, so a cold start is
// not counted against a pattern's time limit. The parse pool ignores this message (it has no id).
self.postMessage({ ready: true });

/** Transfer each underlying buffer once (attachments may share one). */
function unique() {
  const seen = new Set<ArrayBuffer>();
  return (b: ArrayBuffer) => {
    if (seen.has(b)) return false;
    seen.add(b);
    return true;
  };
}
