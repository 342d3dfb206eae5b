// assert and sleep.
import { canonicalJson } from "../scenario-definition";
import { abortableSleep, StepError, type StepHandler } from "./types";

const deepEqual = (a: unknown, b: unknown) => a !== undefined && canonicalJson(a) === canonicalJson(b);
const asText = (v: unknown) => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v));

/** `value` may be undefined here: the executor resolves it leniently so `exists: false` works. */
export const assertStep: StepHandler = async (_sc, p) => {
  const v = p.value;
  const failed: { check: string; expected: unknown; actual: unknown; message: string }[] = [];
  const fail = (check: string, expected: unknown, message: string) =>
    failed.push({ check, expected, actual: v === undefined ? null : v, message });
  if ("equals" in p && !deepEqual(v, p.equals))
    fail("equals", p.equals, `expected ${asText(p.equals)}, got ${v === undefined ? "nothing" : asText(v)}`);
  if ("matches" in p && (v === undefined || !new RegExp(p.matches).test(asText(v))))
    fail("matches", p.matches, `${asText(v)} does not match /${p.matches}/`);
  if ("contains" in p) {
    const ok = Array.isArray(v) ? v.some((x) => deepEqual(x, p.contains)) : typeof v === "string" && v.includes(asText(p.contains));
    if (!ok) fail("contains", p.contains, `${asText(v)} does not contain ${asText(p.contains)}`);
  }
  if ("exists" in p && (v !== undefined && v !== null) !== p.exists)
    fail("exists", p.exists, p.exists ? "the value does not exist" : "the value exists");
  if (failed.length) throw new StepError("assertion_failed", `assert: ${failed.map((f) => f.message).join("; ")}`, failed);
  return { passed: true };
};

export const sleepStep: StepHandler = async (sc, p) => {
  await abortableSleep(sc.startedAt + Number(p.seconds) * 1000 - Date.now(), sc.signal);
  return {};
};
