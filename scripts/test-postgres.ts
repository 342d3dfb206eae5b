// The whole suite on PostgreSQL (issue 20): scripts/test.ts with INBOXD_TEST_DATABASE=postgres, so
// every inboxd the tests start uses a fresh database on a PostgreSQL the test process starts
// (test/support/test-database.ts). Same last line: "N passed, M failed".
export {};
const proc = Bun.spawn([process.execPath, `${import.meta.dir}/test.ts`, ...process.argv.slice(2)], {
  stdio: ["inherit", "inherit", "inherit"],
  env: {
    ...process.env,
    INBOXD_TEST_DATABASE: "postgres",
    // Adds PostgreSQL to what the run requires (test/support/components.ts), keeping any the caller named.
    INBOXD_REQUIRE_COMPONENTS: [process.env.INBOXD_REQUIRE_COMPONENTS, "postgres"].filter(Boolean).join(","),
  },
});
process.exit(await proc.exited);
