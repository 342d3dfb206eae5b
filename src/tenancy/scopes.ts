// One vocabulary for API-key scopes, agent permissions and agent-session scopes (API.md).
// ':write' does not imply ':read'. '*' is full access.
export const SCOPES = [
  "inboxes:read",
  "inboxes:write",
  "messages:read",
  "messages:write",
  "webhooks:read",
  "webhooks:write",
  "domains:read",
  "domains:write",
  "keys:read",
  "keys:write",
  "agents:read",
  "agents:write",
  "scenarios:read",
  "scenarios:write",
  "runs:read",
  "runs:write",
  "secrets:read",
  "secrets:write",
  "origins:read",
  "origins:write",
  "usage:read",
] as const;

export type Scope = (typeof SCOPES)[number] | "*";

export const ALL_SCOPES: readonly string[] = ["*", ...SCOPES];

export function isScope(s: string): s is Scope {
  return ALL_SCOPES.includes(s);
}

export function hasScope(held: readonly string[], needed: string): boolean {
  return held.includes("*") || held.includes(needed);
}

/** Every scope of `requested` is held by `held` ('*' requested needs '*' held). */
export function isSubset(requested: readonly string[], held: readonly string[]): boolean {
  if (held.includes("*")) return true;
  return requested.every((s) => s !== "*" && held.includes(s));
}

/** The scopes a caller may actually exercise given several axes (key, agent, session). */
export function intersect(...axes: readonly (readonly string[])[]): string[] {
  let acc: string[] | null = null;
  for (const axis of axes) {
    const expanded = axis.includes("*") ? [...SCOPES] : [...axis];
    acc = acc === null ? expanded : acc.filter((s) => expanded.includes(s as any));
  }
  return acc ?? [];
}

export function normalizeScopes(scopes: readonly string[]): string[] {
  if (scopes.includes("*")) return ["*"];
  return SCOPES.filter((s) => scopes.includes(s));
}
