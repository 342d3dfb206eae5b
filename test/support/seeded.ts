// Deterministic inputs for tests and benches that generate mail: a seeded pseudo-random generator
// (the same messages on every run) and the sign-in / verification mails of test/fixtures/mail/codes.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** xorshift32 from `seed`: numbers in [0, 1), the same sequence for the same seed. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

export interface CodeFixture {
  subject: string;
  text: string | null;
  html: string | null;
}

/** Every mail of the tuning corpus, in file-name order. */
export function codeFixtures(): CodeFixture[] {
  const dir = join(import.meta.dir, "../fixtures/mail/codes");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .flatMap((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as CodeFixture[]);
}
