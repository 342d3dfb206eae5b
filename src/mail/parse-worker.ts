// Worker-thread entry of the parse pool (src/services/parse-pool.ts): parses raw messages off the
// event loop. Must stay an entrypoint of `bun build --compile` (package.json "build").
import { parseMessage } from "../mime/parse";

declare const self: Worker;

self.onmessage = async (e: MessageEvent<{ id: number; raw: Uint8Array }>) => {
  const { id, raw } = e.data;
  try {
    const parsed = await parseMessage(raw);
    self.postMessage({ id, parsed }, parsed.attachments.map((a) => a.content.buffer as ArrayBuffer).filter(unique()));
  } catch (err) {
    self.postMessage({ id, error: String((err as Error)?.message ?? err) });
  }
};

/** Transfer each underlying buffer once (attachments may share one). */
function unique() {
  const seen = new Set<ArrayBuffer>();
  return (b: ArrayBuffer) => {
    if (seen.has(b)) return false;
    seen.add(b);
    return true;
  };
}
