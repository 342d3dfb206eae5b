// How deep a request body's JSON may nest. No route takes more than a few levels, and a body nested
// thousands deep (valid JSON) made the schema validator's error message quadratic: seconds of a blocked
// event loop, then a stack overflow answered as a 500. Such a body is refused before validation.

/** Deeper than any route's schema or a scenario definition needs. */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests arrays and objects more than `max` levels deep; stops at the first too-deep node. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return false;
}
