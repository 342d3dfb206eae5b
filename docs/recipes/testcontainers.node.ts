// Testcontainers for Node (docs/recipes/testcontainers.md): inboxd in a throwaway container, ready
// when GET /readyz answers 200. Type-checked against testcontainers 12 (strict tsc).
import { GenericContainer, type StartedTestContainer, Wait } from "testcontainers";

export interface Inboxd {
  container: StartedTestContainer;
  url: string;
  smtp: { host: string; port: number };
  apiKey: string;
}

export async function startInboxd(image = "inboxd:latest"): Promise<Inboxd> {
  const apiKey = `isk_live_${crypto.randomUUID().replaceAll("-", "")}`;
  const container = await new GenericContainer(image)
    .withEnvironment({ INBOXD_BOOTSTRAP_KEY: apiKey })
    .withExposedPorts(8025, 1025)
    .withWaitStrategy(Wait.forHttp("/readyz", 8025).forStatusCode(200))
    .withStartupTimeout(60_000)
    .start();
  const host = container.getHost();
  return {
    container,
    url: `http://${host}:${container.getMappedPort(8025)}`,
    smtp: { host, port: container.getMappedPort(1025) },
    apiKey,
  };
}

// In a test (Vitest, Jest, node:test …):
//   const inboxd = await startInboxd();
//   … send mail to inboxd.smtp, read it back from inboxd.url with inboxd.apiKey …
//   await inboxd.container.stop();
