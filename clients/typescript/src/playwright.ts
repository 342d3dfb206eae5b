// Playwright fixtures: `inbox` is a fresh inbox per test, deleted after it.
//   import { test, expect } from "@inboxd/client/playwright";
//   test("sign-up", async ({ page, inbox }) => { …; const code = await inbox.waitForCode({ q: "subject:Welcome" }); });
// Configure with INBOXD_URL / INBOXD_API_KEY, or `test.use({ inboxdOptions: { baseUrl, apiKey } })`.
import { test as base } from "@playwright/test";
import { type CreateInboxBody, Inboxd, type InboxdOptions, inboxFixture, optionsFromEnv, type TestInbox } from "./index.js";

export interface InboxdFixtures {
  inboxdOptions: InboxdOptions | undefined;
  inboxBody: CreateInboxBody;
  inboxd: Inboxd;
  inbox: TestInbox;
}

export const test = base.extend<InboxdFixtures>({
  inboxdOptions: [undefined, { option: true }],
  inboxBody: [{}, { option: true }],
  inboxd: async ({ inboxdOptions }, use) => {
    await use(new Inboxd(inboxdOptions ?? optionsFromEnv()));
  },
  inbox: async ({ inboxd, inboxBody }, use) => {
    await inboxFixture(inboxd, use, inboxBody);
  },
});

export { expect } from "@playwright/test";
