// Cursor pagination, newest first: the cursor is the id (a ULID) of the last item of the previous
// page, and ids sort by creation time, so "WHERE id < cursor ORDER BY id DESC" walks back in time.
import { t } from "elysia";
import { ULID_PATTERN } from "./schemas";
import { queryInteger } from "./query-integers";

export const PageQuery = {
  cursor: t.Optional(t.String({ pattern: ULID_PATTERN, description: "value of links.next from the previous page" })),
  limit: t.Optional(queryInteger("limit", { minimum: 1, maximum: 100, default: 50, description: "page size, 1..100" })),
};

export interface PageArgs {
  cursor?: string;
  limit?: number;
}

export interface Page<T> {
  data: T[];
  meta: { limit: number; has_more: boolean; [k: string]: unknown };
  links: { next: string | null };
}

/** `rows` must have been fetched with LIMIT limit+1. */
export function toPage<R extends { id: string }, T>(
  rows: R[],
  limit: number,
  map: (r: R) => T,
  extraMeta: Record<string, unknown> = {},
): Page<T> {
  const hasMore = rows.length > limit;
  const slice = hasMore ? rows.slice(0, limit) : rows;
  return {
    data: slice.map(map),
    meta: { limit, has_more: hasMore, ...extraMeta },
    links: { next: hasMore ? slice[slice.length - 1]!.id : null },
  };
}

export function limitOf(q: PageArgs): number {
  return q.limit ?? 50;
}
