// The candidate scans of src/mime/codes.ts were rewritten for speed (issue 14); each must find
// exactly what the expression it replaced finds. The old expressions are written out here as the
// reference and both run over many generated strings built to hit their edges.
import { describe, expect, test } from "bun:test";
import { digitRuns, upperRuns } from "../../src/mime/codes";
import { rng } from "../support/seeded";

/** The scan upperRuns replaced, verbatim. */
function upperRunsReference(s: string): number[] {
  const out: number[] = [];
  for (const m of s.matchAll(/[A-Z0-9][A-Z0-9-]*/g)) {
    const run = m[0];
    if (run.length >= 4 && run.length <= 13 && /[A-Z]/.test(run) && (/\d/.test(run) || run.includes("-"))) out.push(m.index!);
  }
  return out;
}

const LETTER = String.raw`\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}`;
const SEP = String.raw`(?:[ \t]{1,2}|[ \t]?[-–][ \t]?|[ \t]*\n[ \t\n]{0,8})`;
/** The expression digitRuns runs only after its pre-check, run unconditionally. */
const RUN = new RegExp(
  String.raw`(?<![${LETTER}\p{N}_#+])(?<!\d${SEP})\d{1,4}(?:${SEP}\d{1,4}){1,7}(?![${LETTER}\p{N}_])(?!${SEP}\d)`,
  "gu",
);

function generate(r: () => number, alphabet: string[], n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    let s = "";
    const len = Math.floor(r() * 80);
    for (let j = 0; j < len; j++) s += alphabet[Math.floor(r() * alphabet.length)];
    // Long runs and long dash prefixes: where the bounded walks of upperRuns turn around.
    if (r() < 0.15) s = "-".repeat(Math.floor(r() * 20)) + s;
    if (r() < 0.15) s += "X".repeat(Math.floor(r() * 20)) + pick(r, alphabet);
    if (r() < 0.1) s = `${s}${"-".repeat(Math.floor(r() * 16))}AB1`;
    out.push(s);
  }
  return out;
}
const pick = (r: () => number, xs: string[]) => xs[Math.floor(r() * xs.length)] as string;

describe("rewritten candidate scans find what the old expressions found", () => {
  test("upperRuns", () => {
    const r = rng(1);
    const strings = generate(r, ["A", "B", "Z", "X", "X", "0", "5", "9", "-", "-", "a", " ", "\n", "é", "Ä", "_", "."], 100_000);
    strings.push(
      "",
      "-",
      "----",
      "ABCD",
      "ABC1",
      "AB-1",
      "ABCD-",
      "--ABCD-",
      `${"-".repeat(40)}AB12`,
      `1${"X".repeat(77)}\n2${"X".repeat(77)}`,
    );
    strings.push(
      `${"X".repeat(13)}1`,
      `${"X".repeat(12)}1`,
      `${"X".repeat(11)}1 `,
      `${"A1".repeat(7)}`,
      `A${"-".repeat(12)}`,
      `${"-".repeat(30)}`,
    );
    let mismatches = 0;
    let found = 0;
    for (const s of strings) {
      const want = upperRunsReference(s);
      found += want.length;
      if (JSON.stringify(upperRuns(s)) !== JSON.stringify(want)) {
        mismatches++;
        expect({ s, got: upperRuns(s) }).toEqual({ s, got: want });
      }
    }
    expect(mismatches).toBe(0);
    expect(found).toBeGreaterThan(10_000);
  });

  test("digitRuns", () => {
    const r = rng(2);
    const strings = generate(r, ["1", "2", "3", "0", "9", " ", " ", "\t", "\n", "-", "–", "a", "A", "#", "+", "_", "٣", "x"], 50_000);
    let found = 0;
    for (const s of strings) {
      const want = [...s.matchAll(RUN)].map((m) => [m.index, m[0]]);
      found += want.length;
      expect(digitRuns(s).map((m) => [m.index, m[0]])).toEqual(want);
    }
    expect(found).toBeGreaterThan(5_000);
  });
});
