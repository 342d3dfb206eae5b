// The details of a 422 validation_error, the same whichever layer refused the input: the route's
// schema (Elysia/TypeBox) or a service's own rule (mail/chaos.ts, tenancy/api-keys.ts, …). A client
// reads `details.field`, the first offending field as it would write it ("rules[0].stage"), and
// `details.errors`, every problem found as {path (a JSON pointer), message} (docs/api.md "Errors").
import { Value } from "@sinclair/typebox/value";
import { escapePointer, unescapePointer } from "../lib/json-pointer";

export interface FieldError {
  path: string;
  message: string;
}

/** "/rules/0/stage" → "rules[0].stage"; "" (the whole input) → "". */
export function fieldOf(pointer: string): string {
  let out = "";
  for (const raw of pointer.split("/").slice(1)) {
    const seg = unescapePointer(raw);
    out += /^\d+$/.test(seg) ? `[${seg}]` : out ? `.${seg}` : seg;
  }
  return out;
}

/** "rules[0].stage" → "/rules/0/stage", the inverse of fieldOf for the names services use. */
export function pointerOf(field: string): string {
  const segs = field.match(/[^.[\]]+/g) ?? [];
  return segs.map((s) => `/${escapePointer(s)}`).join("");
}

/**
 * What the route's schema refused: where (`body`, `query`, …) and the findings. Elysia checks a
 * number in the query string (`limit=500`) after converting it, and that check reports neither the
 * parameter nor a path (`type: "property"`): the parameter is the one whose value converts to the
 * refused number, when exactly one does.
 */
export function schemaFailure(v: any, url: string): { in: string; errors: FieldError[] } {
  const errors = schemaErrors(v);
  if (v?.type !== "property" || errors.length !== 1 || errors[0]!.path) return { in: v?.type ?? "input", errors };
  const named = [...new URL(url).searchParams].filter(([, s]) => s.trim() !== "" && Number(s) === v.value);
  if (named.length !== 1) return { in: "query", errors };
  return { in: "query", errors: [{ path: pointerOf(named[0]![0]), message: errors[0]!.message }] };
}

/**
 * The schema validator's findings, one per path (TypeBox reports a missing union member twice),
 * at most 20, with union messages that name the allowed values rather than their JSON types.
 */
function schemaErrors(v: any): FieldError[] {
  try {
    const all = v?.all as { path?: string; message?: string; summary?: string; schema?: any }[] | undefined;
    if (Array.isArray(all) && all.length) {
      const seen = new Set<string>();
      const out: FieldError[] = [];
      for (const e of all) {
        const path = e.path ?? "";
        if (seen.has(path)) continue;
        seen.add(path);
        const union = e.message === "Expected union value" ? unionMessage(e.schema, (e as { value?: unknown }).value) : null;
        out.push({ path, message: union ?? e.summary ?? e.message ?? "invalid" });
        if (out.length === 20) break;
      }
      return out;
    }
  } catch {}
  return [{ path: "", message: String(v?.message ?? "invalid") }];
}

// TypeBox says "should be one of: 'string', 'string'" for a union of literals, and Elysia's
// coercing t.Integer() is itself a union (a numeric string or an integer): name what is accepted.
// A value of an accepted type that breaks that branch's own rule ("tomorrow" for a nullable
// date-time) is told that rule, not "must be one of string, null".
function unionMessage(schema: any, value: unknown): string | null {
  const branches = flatBranches(schema).filter((b) => !isCoercion(b));
  if (branches.length === 0) return null;
  const accepted: string[] = [];
  for (const b of branches) {
    const name = acceptedName(b);
    if (name && !accepted.includes(name)) accepted.push(name);
  }
  if (accepted.length === 0) return null;
  const a = (name: string) => `${/^[aeiou]/.test(name) ? "an" : "a"} ${name}`;
  const nullable = accepted.length === 2 && accepted.includes("null");
  if (!nullable) return accepted.length === 1 ? `must be ${a(accepted[0]!)}` : `must be one of ${accepted.join(", ")}`;
  const other = accepted.find((n) => n !== "null")!;
  const same = branches.find((b) => b.type === other);
  if (same && sameType(same.type, value)) {
    if (typeof same.format === "string") return `must be a ${same.format} string, or null`;
    const broken = same.type === "integer" ? null : Value.Errors(same, value).First();
    if (broken) return `${broken.message}, or null`;
  }
  return `must be ${a(other)}, or null`;
}

/** The value is of the schema type's JSON type (any number for "integer": 1.5 is an integer's wrong kind of number). */
function sameType(type: string, v: unknown): boolean {
  if (type === "integer" || type === "number") return typeof v === "number";
  if (type === "array") return Array.isArray(v);
  if (type === "object") return v !== null && typeof v === "object" && !Array.isArray(v);
  return typeof v === type;
}

/** The branches of a union, nested unions opened (t.Union([t.Integer(), t.Null()]) holds Elysia's integer union). */
function flatBranches(schema: any): any[] {
  const branches = schema?.anyOf;
  if (!Array.isArray(branches)) return schema && typeof schema === "object" ? [schema] : [];
  return branches.flatMap(flatBranches);
}

/** Elysia's string forms of a number or boolean (query strings): not a type a client is asked for. */
const isCoercion = (b: any) => b?.type === "string" && ["integer", "numeric", "boolean"].includes(b.format);

/** A union branch as a message names it: a literal's value, or a JSON type. */
function acceptedName(b: any): string | null {
  if (b && typeof b === "object" && "const" in b) return JSON.stringify(b.const);
  return typeof b?.type === "string" ? b.type : null;
}

/** Completes a validation_error's details so that both `field` and `errors` are there when a field is to blame. */
export function completeValidationDetails(details: Record<string, unknown>, message: string): Record<string, unknown> {
  const errors = details.errors;
  const field = details.field;
  if (typeof field === "string" && !Array.isArray(errors)) {
    return { ...details, errors: [{ path: pointerOf(field), message }] };
  }
  if (field === undefined && Array.isArray(errors) && typeof errors[0]?.path === "string" && errors[0].path) {
    return { ...details, field: fieldOf(errors[0].path) };
  }
  return details;
}
