// The real components tests start or drive: Debian packages, and root for some. Without one, the
// tests that need it skip, and one test per file names the component and how to install it. Where
// a run requires it (INBOXD_REQUIRE_COMPONENTS: `all` in .ci/run, `postgres` in
// `npm run test:postgres`, or any comma list of the names below) that test fails instead, so CI
// never skips a test without anyone seeing.
import { expect, test } from "bun:test";

export type Component = "chromium" | "curl" | "dovecot" | "isync" | "postgres" | "python3" | "pytest" | "spamd" | "swaks" | "tmpfs";

const required = new Set(
  (process.env.INBOXD_REQUIRE_COMPONENTS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
);

/** Whether this run must not skip the tests that need `c`. */
export function isRequired(c: Component): boolean {
  return required.has("all") || required.has(c);
}

/**
 * `here`, after registering (when it is false) the test that says which tests are skipped for want
 * of `c` and how to get it; that test fails where `c` is required. Call at a test file's top level.
 */
export function needs(c: Component, here: boolean, install: string): boolean {
  if (!here) {
    test(`${c} is missing (${install}): the tests that need it are skipped`, () => {
      expect({ missing: c, requiredBy: isRequired(c) ? process.env.INBOXD_REQUIRE_COMPONENTS : null }).toEqual({
        missing: c,
        requiredBy: null,
      });
    });
  }
  return here;
}
