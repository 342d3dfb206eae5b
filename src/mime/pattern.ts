// A caller's own regular expression for codes (MailSlurp's customPatterns): `pattern` on the
// message routes replaces the extracted `codes` with its matches. Pure: compiling (the 422 reason),
// the text it runs over, and the matching itself. The hard time limit lives in
// mail/pattern-runner.ts, which runs matchPattern in a worker it can terminate (docs/parsing.md).
import { htmlToText } from "./html-text";

/** Longest accepted pattern (characters). */
export const MAX_PATTERN_LENGTH = 256;
/** Characters of subject + text + HTML-derived text a pattern runs over: the bound on its work. */
export const PATTERN_SCAN_CHARS = 64 * 1024;
/** Most matches returned (as for extracted codes). */
export const MAX_PATTERN_MATCHES = 5;

export class PatternError extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export interface CompiledPattern {
  source: string;
  flags: string;
}

/**
 * Checks a pattern and returns what to build the RegExp from. JavaScript syntax, Unicode mode
 * (`u`); a leading inline group of flags as Java and PCRE write it, `(?i)`, `(?im)`, `(?s)`, turns
 * into RegExp flags (i, m, s), since JavaScript has no such prefix.
 */
export function compilePattern(pattern: string): CompiledPattern {
  if (pattern.length === 0) throw new PatternError("the pattern is empty");
  if (pattern.length > MAX_PATTERN_LENGTH) throw new PatternError(`the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  let source = pattern;
  let flags = "gu";
  const inline = /^\(\?([ims]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    flags += [...new Set(inline[1])].join("");
  }
  try {
    new RegExp(source, flags);
  } catch (e) {
    throw new PatternError(String((e as Error).message).replace(/^Invalid regular expression: /, ""));
  }
  return { source, flags };
}

/** Subject, text body and the HTML body as text, one per line, cut to PATTERN_SCAN_CHARS. */
export function patternText(subject: string, text: string | null, html: string | null): string {
  const parts = [subject, text ?? ""];
  if (html) parts.push(htmlToText(html));
  return parts.join("\n").slice(0, PATTERN_SCAN_CHARS);
}

/** The distinct matches, in order, at most MAX_PATTERN_MATCHES: each its first capture group when the pattern has one, else the whole match. Empty ones are skipped. */
export function matchPattern(p: CompiledPattern, text: string): string[] {
  const re = new RegExp(p.source, p.flags);
  const out: string[] = [];
  for (const m of text.matchAll(re)) {
    const value = m.length > 1 ? m[1] : m[0];
    if (value && !out.includes(value)) out.push(value);
    if (out.length >= MAX_PATTERN_MATCHES) break;
  }
  return out;
}
