// `${…}` references in scenario definitions: ${inputs.NAME}, ${secrets.NAME}, ${steps.ID.path},
// ${run.id}. A string that is exactly one reference keeps the referenced value's type; a
// reference inside a longer string is stringified into it.
import { escapePointer } from "../lib/json-pointer";

export const REF = /\$\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)*)\s*\}/g;
const WHOLE = /^\$\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)*)\s*\}$/;

export const REDACTED = "[redacted]";

export interface Scope {
  inputs: Record<string, unknown>;
  steps: Record<string, unknown>;
  run: Record<string, unknown>;
  /** Secret values by name; absent names are unresolved. */
  secrets: Map<string, string>;
  /** When true, secrets resolve to a placeholder (for events and approval snapshots). */
  redact?: boolean;
}

export class UnresolvedReference extends Error {
  constructor(readonly ref: string) {
    super(`\${${ref}} does not resolve to a value`);
  }
}

/** Every reference path in a JSON value (for validation and required permissions). */
export function references(value: unknown, at = ""): { ref: string; path: string }[] {
  const out: { ref: string; path: string }[] = [];
  const walk = (v: unknown, p: string) => {
    if (typeof v === "string") for (const m of v.matchAll(REF)) out.push({ ref: m[1]!, path: p });
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${p}/${i}`));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, `${p}/${escapePointer(k)}`);
  };
  walk(value, at);
  return out;
}

function lookup(ref: string, scope: Scope): unknown {
  const [root, ...path] = ref.split(".");
  let cur: unknown;
  if (root === "secrets") {
    const name = path.join(".");
    if (!scope.secrets.has(name)) throw new UnresolvedReference(ref);
    return scope.redact ? `[secret:${name}]` : scope.secrets.get(name);
  } else if (root === "inputs") cur = scope.inputs;
  else if (root === "steps") cur = scope.steps;
  else if (root === "run") cur = scope.run;
  else throw new UnresolvedReference(ref);
  for (const seg of path) {
    if (cur === null || typeof cur !== "object") throw new UnresolvedReference(ref);
    cur = (cur as Record<string, unknown>)[seg];
    if (cur === undefined) throw new UnresolvedReference(ref);
  }
  return cur;
}

export function interpolate(value: unknown, scope: Scope): unknown {
  if (typeof value === "string") {
    const whole = WHOLE.exec(value);
    if (whole) return lookup(whole[1]!, scope);
    return value.replace(REF, (_, ref: string) => {
      const v = lookup(ref, scope);
      return typeof v === "string" ? v : JSON.stringify(v);
    });
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, scope));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = interpolate(v, scope);
    return out;
  }
  return value;
}

/** Replaces every occurrence of a secret value in any string of a JSON value. */
export function scrub(value: unknown, secrets: Iterable<string>): unknown {
  const list = [...secrets].filter((s) => s.length >= 1).sort((a, b) => b.length - a.length);
  if (list.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") {
      let s = v;
      for (const sec of list) if (s.includes(sec)) s = s.split(sec).join(REDACTED);
      return s;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x);
      return out;
    }
    return v;
  };
  return walk(value);
}
