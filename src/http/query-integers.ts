// Integer query parameters. The schema's number coercion takes `0x10`, `+1`, ` 1` and `1e1` for an integer
// (a `wait=0x10` held a request 16 s); the contract wants a non-integer refused. Each one is declared with
// queryInteger(), which records its name, and strictQueryIntegers() (app.ts, before the schema reads the
// query) refuses any spelling of a recorded name other than decimal digits.
import { t } from "elysia";
import { validation } from "../lib/errors";

const names = new Set<string>();

/** t.Integer for the query parameter `name`, which only decimal digits may spell. */
export function queryInteger(name: string, options: Parameters<typeof t.Integer>[0]) {
  names.add(name);
  return t.Integer(options);
}

/** Throws the schema's own refusal (as for `limit=abc`) for a recorded parameter not written in decimal digits. */
export function strictQueryIntegers(url: string): void {
  const q = url.indexOf("?");
  if (q < 0) return;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const name of names) {
    for (const v of params.getAll(name)) {
      if (!/^-?\d+$/.test(v)) {
        throw validation(`invalid query: /${name} must be an integer`, {
          field: name,
          in: "query",
          errors: [{ path: `/${name}`, message: "must be an integer" }],
        });
      }
    }
  }
}
