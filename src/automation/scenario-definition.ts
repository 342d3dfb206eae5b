// The scenario definition language (schema_version 1; docs/scenarios.md): validation with
// JSON-pointer error paths, the permissions a definition needs, whether it mutates anything,
// and the canonical JSON its definition_hash is computed over.
import { createHash } from "node:crypto";
import { escapePointer } from "../lib/json-pointer";
import { references } from "./interpolate";
import { SCOPES } from "../tenancy/scopes";
import { parseSearchQuery, SearchSyntaxError } from "../mail/search-query";
import { CHECK_NAMES } from "../mail/analyses";

export const SCHEMA_VERSION = 1;
export const MAX_STEPS = 50;
export const DEFAULT_RUN_TIMEOUT = 600;
export const MAX_RUN_TIMEOUT = 3600;

export interface ValidationError {
  path: string;
  code: string;
  message: string;
}

export interface Step {
  id?: string;
  type: StepType;
  name?: string;
  approval?: boolean;
  [k: string]: unknown;
}

export interface Definition {
  schema_version: number;
  description?: string;
  timeout_seconds?: number;
  inputs?: Record<string, { type: "string" | "number" | "boolean"; required?: boolean; default?: unknown; description?: string }>;
  steps: Step[];
}

type FieldKind = "string" | "integer" | "number" | "boolean" | "object" | "any" | "regex" | "enum" | "search";
export interface FieldSpec {
  kind: FieldKind;
  required?: boolean;
  min?: number;
  max?: number;
  values?: readonly string[];
  description: string;
}

export const COMMON: Record<string, FieldSpec> = {
  id: { kind: "string", description: "step id (letters, digits, _ ; unique): later steps read its output as ${steps.ID.…}" },
  type: { kind: "string", required: true, description: "the step kind" },
  name: { kind: "string", description: "human-readable label" },
  approval: { kind: "boolean", description: "park the run before this step until a person approves it" },
};

export const HTTP_METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Per step kind: its fields, the permissions it needs and whether it changes anything. */
export const STEP_KINDS = {
  "inbox.create": {
    summary: "create a disposable inbox (removed when the run ends); output {id, address}",
    permissions: ["inboxes:write"],
    fields: {
      inbox_name: { kind: "string", description: "the inbox's name" },
      local_part: { kind: "string", description: "claim this local part on the project's shared subdomain" },
      ttl_seconds: { kind: "integer", min: 60, max: 2_592_000, description: "lifetime; default 3600" },
    },
  },
  "inbox.delete": {
    summary: "delete an inbox; output {deleted: true}",
    permissions: ["inboxes:write"],
    fields: { inbox: { kind: "string", required: true, description: "inbox id, e.g. ${steps.inbox.id}" } },
  },
  "message.wait": {
    summary: "wait for a message matching every given filter; output {id, subject, from, from_name, text, html, codes, links, received_at}",
    permissions: ["messages:read"],
    fields: {
      inbox: { kind: "string", required: true, description: "inbox id or address, e.g. ${steps.inbox.id}" },
      subject: { kind: "string", description: "case-insensitive substring of the subject" },
      from: { kind: "string", description: "case-insensitive substring of the sender address" },
      contains: { kind: "string", description: "case-insensitive substring of the text or HTML body" },
      q: { kind: "search", description: 'search query (docs/search.md), e.g. subject:"reset" has:link; combines with the filters above' },
      timeout_seconds: { kind: "number", min: 0.1, max: 600, description: "give up after this long (default 60); the step fails" },
    },
  },
  "message.extract": {
    summary: "extract a verification code or a link from a message; output {value}",
    permissions: ["messages:read"],
    fields: {
      message: { kind: "string", required: true, description: "message id, e.g. ${steps.mail.id}" },
      extract: { kind: "enum", values: ["code", "link"], required: true, description: "what to extract" },
      pattern: {
        kind: "regex",
        description:
          "code: regex over subject, text and HTML text (first capture group, else the match; the REST pattern rules); link: regex a link must match",
      },
    },
  },
  "message.check": {
    summary:
      "check the mail itself; output the analysis as GET /v1/messages/{id}/analysis/{check} answers it (spam: {score, threshold, is_spam, rules}; html: {score, warnings}; auth: {verdict, spf, dkim, dmarc, arc}; links: {links: [{url, status, ok, redirects, error}]})",
    permissions: ["messages:read"],
    fields: {
      message: { kind: "string", required: true, description: "message id, e.g. ${steps.mail.id}" },
      check: { kind: "enum", values: CHECK_NAMES, required: true, description: "which analysis (docs/analysis.md)" },
    },
  },
  "http.request": {
    summary: "call an allowed HTTP origin; output {status, ok, headers, body}",
    permissions: ["origins:read"],
    fields: {
      url: { kind: "string", required: true, description: "absolute http(s) URL on an allowed origin" },
      method: { kind: "enum", values: HTTP_METHODS, description: "default GET" },
      headers: { kind: "object", description: "header name to string value" },
      json: { kind: "any", description: "JSON request body (sets content-type application/json)" },
      body: { kind: "string", description: "raw request body (exclusive with json)" },
      timeout_seconds: { kind: "number", min: 0.1, max: 120, description: "default 30" },
    },
  },
  assert: {
    summary: "check a value; a failed check is recorded in failed_assertions and fails the run; output {passed: true}",
    permissions: [],
    fields: {
      value: { kind: "any", required: true, description: "the value under test, usually ${steps.ID.…}" },
      equals: { kind: "any", description: "deep equality" },
      matches: { kind: "regex", description: "regex the (stringified) value must match" },
      contains: { kind: "any", description: "substring of a string value, or element of an array value" },
      exists: { kind: "boolean", description: "true: the value resolves and is not null; false: it does not" },
    },
  },
  sleep: {
    summary: "pause; output {}",
    permissions: [],
    fields: { seconds: { kind: "number", required: true, min: 0, max: 3600, description: "how long" } },
  },
} as const satisfies Record<string, { summary: string; permissions: readonly string[]; fields: Record<string, FieldSpec> }>;

export type StepType = keyof typeof STEP_KINDS;
export const STEP_TYPES = Object.keys(STEP_KINDS) as StepType[];

export const STEP_ID = /^[A-Za-z_][A-Za-z0-9_]{0,39}$/;
export const INPUT_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export interface Analysis {
  valid: boolean;
  errors: ValidationError[];
  required_permissions: string[];
  has_test_mutations: boolean;
}

function typeOf(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

function checkField(spec: FieldSpec, v: unknown, path: string, errors: ValidationError[]): void {
  const err = (code: string, message: string): void => void errors.push({ path, code, message });
  // Any string may instead carry a ${…} reference resolved at run time.
  const isRef = typeof v === "string" && /\$\{/.test(v);
  switch (spec.kind) {
    case "any":
      return;
    case "string":
      if (typeof v !== "string") return err("invalid_type", `expected a string, got ${typeOf(v)}`);
      return;
    case "boolean":
      if (typeof v !== "boolean") return err("invalid_type", `expected a boolean, got ${typeOf(v)}`);
      return;
    case "object":
      if (typeOf(v) !== "object") return err("invalid_type", `expected an object, got ${typeOf(v)}`);
      for (const [k, x] of Object.entries(v as object)) {
        if (typeof x !== "string")
          errors.push({ path: `${path}/${escapePointer(k)}`, code: "invalid_type", message: "header values are strings" });
      }
      return;
    case "enum":
      if (typeof v !== "string" || !spec.values!.includes(v)) return err("invalid_value", `expected one of ${spec.values!.join(", ")}`);
      return;
    case "search":
      if (typeof v !== "string") return err("invalid_type", `expected a search query string, got ${typeOf(v)}`);
      // With a ${…} reference the query is only known at run time (the step checks it then).
      if (isRef) return;
      try {
        parseSearchQuery(v);
      } catch (e) {
        if (!(e instanceof SearchSyntaxError)) throw e;
        err("invalid_query", `not a valid search: ${e.reason} at position ${e.position}`);
      }
      return;
    case "regex":
      if (typeof v !== "string") return err("invalid_type", `expected a regular expression string, got ${typeOf(v)}`);
      try {
        new RegExp(v);
      } catch (e) {
        err("invalid_pattern", `not a valid regular expression: ${(e as Error).message}`);
      }
      return;
    case "integer":
    case "number":
      if (isRef) return;
      if (typeof v !== "number" || !Number.isFinite(v) || (spec.kind === "integer" && !Number.isInteger(v))) {
        return err("invalid_type", `expected ${spec.kind === "integer" ? "an integer" : "a number"}, got ${typeOf(v)}`);
      }
      if ((spec.min !== undefined && v < spec.min) || (spec.max !== undefined && v > spec.max)) {
        return err("out_of_range", `must be ${spec.min}..${spec.max}`);
      }
  }
}

/**
 * Validates a definition. `secretNames` (the project's secrets) turns unknown ${secrets.X}
 * references into errors; pass null to skip that check.
 */
export function analyze(def: unknown, secretNames: Set<string> | null): Analysis {
  const errors: ValidationError[] = [];
  const perms = new Set<string>();
  let mutates = false;
  const push = (path: string, code: string, message: string): void => void errors.push({ path, code, message });

  if (typeOf(def) !== "object") {
    push("", "invalid_type", "the definition must be a JSON object");
    return { valid: false, errors, required_permissions: [], has_test_mutations: false };
  }
  const d = def as Record<string, unknown>;
  for (const k of Object.keys(d)) {
    if (!["schema_version", "description", "timeout_seconds", "inputs", "steps"].includes(k)) {
      push(`/${escapePointer(k)}`, "unknown_field", `unknown field ${k}`);
    }
  }
  if (d.schema_version === undefined) push("/schema_version", "required", `schema_version is required (current: ${SCHEMA_VERSION})`);
  else if (d.schema_version !== SCHEMA_VERSION)
    push("/schema_version", "unsupported_schema_version", `only schema_version ${SCHEMA_VERSION} exists`);
  if (d.description !== undefined && typeof d.description !== "string") push("/description", "invalid_type", "expected a string");
  if (d.timeout_seconds !== undefined) {
    checkField({ kind: "integer", min: 1, max: MAX_RUN_TIMEOUT, description: "" }, d.timeout_seconds, "/timeout_seconds", errors);
  }

  const inputNames = new Set<string>();
  if (d.inputs !== undefined) {
    if (typeOf(d.inputs) !== "object") push("/inputs", "invalid_type", "expected an object of input declarations");
    else {
      for (const [name, decl] of Object.entries(d.inputs as object)) {
        const p = `/inputs/${escapePointer(name)}`;
        if (!INPUT_NAME.test(name)) push(p, "invalid_name", "input names are letters, digits and _");
        inputNames.add(name);
        if (typeOf(decl) !== "object") {
          push(p, "invalid_type", "expected {type, required?, default?, description?}");
          continue;
        }
        const dd = decl as Record<string, unknown>;
        for (const k of Object.keys(dd))
          if (!["type", "required", "default", "description"].includes(k))
            push(`${p}/${escapePointer(k)}`, "unknown_field", `unknown field ${k}`);
        if (!["string", "number", "boolean"].includes(dd.type as string))
          push(`${p}/type`, "invalid_value", "expected string, number or boolean");
        if (dd.required !== undefined && typeof dd.required !== "boolean") push(`${p}/required`, "invalid_type", "expected a boolean");
        if (dd.default !== undefined && typeof dd.default !== dd.type)
          push(`${p}/default`, "invalid_type", `the default must be a ${String(dd.type)}`);
      }
    }
  }

  const seenIds = new Set<string>();
  if (d.steps === undefined) push("/steps", "required", "steps is required");
  else if (!Array.isArray(d.steps)) push("/steps", "invalid_type", "expected an array of steps");
  else if (d.steps.length === 0) push("/steps", "empty", "a scenario needs at least one step");
  else if (d.steps.length > MAX_STEPS) push("/steps", "too_many_steps", `at most ${MAX_STEPS} steps`);
  else {
    d.steps.forEach((raw, i) => {
      const p = `/steps/${i}`;
      if (typeOf(raw) !== "object") return push(p, "invalid_type", "a step is an object");
      const st = raw as Record<string, unknown>;
      // References may only point at inputs, secrets, the run and steps defined earlier.
      for (const { ref, path } of references(st, p)) {
        const [root, first] = ref.split(".");
        if (root === "inputs") {
          if (!first || !inputNames.has(first))
            push(path, "unknown_reference", `\${${ref}}: input ${first ?? ""} is not declared in /inputs`);
        } else if (root === "secrets") {
          perms.add("secrets:read");
          if (!first || ref.split(".").length !== 2) push(path, "unknown_reference", `\${${ref}}: write \${secrets.NAME}`);
          else if (secretNames && !secretNames.has(first))
            push(path, "unknown_secret", `\${${ref}}: no scenario secret named ${first} in this project`);
        } else if (root === "steps") {
          if (!first || !seenIds.has(first)) push(path, "unknown_reference", `\${${ref}}: no earlier step has id ${first ?? ""}`);
        } else if (root === "run") {
          if (first !== "id") push(path, "unknown_reference", `\${${ref}}: only \${run.id} exists`);
        } else push(path, "unknown_reference", `\${${ref}}: references start with inputs, secrets, steps or run`);
      }
      if (st.id !== undefined) {
        if (typeof st.id !== "string" || !STEP_ID.test(st.id)) push(`${p}/id`, "invalid_name", "step ids are 1..40 letters, digits and _");
        else if (seenIds.has(st.id)) push(`${p}/id`, "duplicate_id", `another step already has id ${st.id}`);
        else seenIds.add(st.id);
      }
      if (st.name !== undefined && typeof st.name !== "string") push(`${p}/name`, "invalid_type", "expected a string");
      if (st.approval !== undefined && typeof st.approval !== "boolean") push(`${p}/approval`, "invalid_type", "expected a boolean");
      if (st.type === undefined) return push(`${p}/type`, "required", "type is required");
      const kind = (STEP_KINDS as Record<string, (typeof STEP_KINDS)[StepType]>)[st.type as string];
      if (!kind)
        return push(`${p}/type`, "unknown_step_type", `unknown step type ${JSON.stringify(st.type)}; one of ${STEP_TYPES.join(", ")}`);
      for (const perm of kind.permissions) perms.add(perm);
      const fields = kind.fields as Record<string, FieldSpec>;
      for (const [k, v] of Object.entries(st)) {
        if (k in COMMON) continue;
        const spec = fields[k];
        if (!spec) push(`${p}/${escapePointer(k)}`, "unknown_field", `${st.type} has no field ${k}`);
        else checkField(spec, v, `${p}/${escapePointer(k)}`, errors);
      }
      for (const [k, spec] of Object.entries(fields))
        if (spec.required && st[k] === undefined) push(`${p}/${k}`, "required", `${st.type} needs ${k}`);
      if (st.type === "assert" && !["equals", "matches", "contains", "exists"].some((k) => k in st)) {
        push(p, "required", "assert needs at least one of equals, matches, contains, exists");
      }
      if (st.type === "http.request") {
        if (st.json !== undefined && st.body !== undefined) push(`${p}/body`, "conflict", "send either json or body, not both");
        if (typeof st.url === "string" && !/^\$\{/.test(st.url) && !/^https?:\/\//i.test(st.url))
          push(`${p}/url`, "invalid_value", "an absolute http:// or https:// URL");
        const method = typeof st.method === "string" ? st.method : "GET";
        if (!["GET", "HEAD", "OPTIONS"].includes(method)) mutates = true;
      }
      if (st.type === "inbox.create" || st.type === "inbox.delete") mutates = true;
    });
  }
  return {
    valid: errors.length === 0,
    errors,
    required_permissions: SCOPES.filter((s) => perms.has(s)),
    has_test_mutations: mutates,
  };
}

/** Sorted keys, no insignificant whitespace: equal definitions give equal bytes. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(v as object)
    .filter((k) => (v as any)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as any)[k])}`).join(",")}}`;
}

export function definitionHash(def: unknown): string {
  return createHash("sha256").update(canonicalJson(def)).digest("hex");
}
