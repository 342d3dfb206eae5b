// What index_terms costs the search worker (storage/sqlite/search-terms.ts): the same batches of
// ~2 KB bodies indexed into messages_fts with and without adding their words to index_terms (a
// second pass of FTS5's tokenizer through the scratch table), in a file of its own, as the worker
// does; then a fragment lookup through the trigram index against the fts5vocab walk it replaces.
//   bun bench/search-terms.ts [--messages 50000]
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type IndexRow, SearchFileProbe } from "../src/storage/sqlite/search-terms-probe";
import { arg, machineLine } from "./support";

const MESSAGES = arg("messages", 50_000);
const BATCH = 500;

// A Zipf-ish vocabulary of 30,000 words plus one unique token per message (as bench/scale.ts seeds).
const words = Array.from({ length: 30_000 }, (_, i) => `w${i.toString(36)}x${(i * 7919).toString(36)}`);
let seed = 1;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const body = (i: number) => {
  const out: string[] = [`seedtok${i}`];
  for (let len = 0; len < 2000; len += out.at(-1)!.length + 1) out.push(words[Math.floor(words.length * rnd() ** 3)]!);
  return out.join(" ");
};

function run(withTerms: boolean): { ms: number; bytes: number; probe: SearchFileProbe } {
  const probe = new SearchFileProbe(mkdtempSync(join(tmpdir(), "inboxd-bench-terms-")));
  seed = 1;
  const t0 = performance.now();
  for (let start = 0; start < MESSAGES; start += BATCH) {
    const rows: IndexRow[] = Array.from(
      { length: BATCH },
      (_, k) => [start + k + 1, `scale message ${start + k}`, body(start + k), "Scale Bench bench@example.com", "box@example.com"] as const,
    );
    probe.indexBatch(rows, withTerms);
  }
  const ms = performance.now() - t0;
  return { ms, bytes: probe.bytes(), probe };
}

console.log(machineLine());
const plain = run(false);
const terms = run(true);
console.log(`${MESSAGES} messages of ~2 KB, batches of ${BATCH}:`);
console.log(
  `  index only            ${(plain.ms / 1000).toFixed(1)} s (${Math.round((MESSAGES * 1000) / plain.ms)} msg/s), file ${(plain.bytes / 2 ** 20).toFixed(1)} MiB`,
);
console.log(
  `  index + index_terms   ${(terms.ms / 1000).toFixed(1)} s (${Math.round((MESSAGES * 1000) / terms.ms)} msg/s), file ${(terms.bytes / 2 ** 20).toFixed(1)} MiB`,
);
console.log(`  distinct terms ${terms.probe.termCount()}`);
const frag = `eedtok${Math.floor(MESSAGES / 2)}`;
let t = performance.now();
const viaTrigram = terms.probe.viaTrigram(frag).length;
const trigramMs = performance.now() - t;
t = performance.now();
const viaWalk = terms.probe.viaWalk(frag).length;
const walkMs = performance.now() - t;
console.log(
  `  terms containing "${frag}": trigram MATCH ${trigramMs.toFixed(2)} ms (${viaTrigram}), fts5vocab walk ${walkMs.toFixed(1)} ms (${viaWalk})`,
);
for (const r of [plain, terms]) r.probe.destroy();
