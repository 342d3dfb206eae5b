// Who may claim a domain name on a shared instance (docs/security.md "Smaller hardening"):
// - verification on: several teams may hold a pending claim on one name; the first verified wins
//   it, the others' claims then fail verification; another team's pending claim is never revealed
//   (only a verified name, whose MX points here for anyone to see, is 422 domain_taken);
// - verification off: first come, and a name under, or a parent of, another team's domain is
//   refused too, with a message that names no one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addUser, json, login, startInboxd, type Instance } from "../support/harness";
import { startTestDns, type TestDns } from "../support/dns-server";

interface Tenant {
  token: string;
  project: string;
}

async function tenant(inst: Instance, email: string, team: string): Promise<Tenant> {
  await addUser(inst, email, "tenant-pass-1", "owner", team);
  const token = await login(inst, email, "tenant-pass-1");
  const project = (await json(inst.api("/v1/projects", { token }))).body.data[0].id;
  return { token, project };
}

const claim = (inst: Instance, t: Tenant, domain: string) =>
  json(inst.api("/v1/domains", { method: "POST", token: t.token, project: t.project, json: { domain } }));
const verify = (inst: Instance, t: Tenant, id: string) =>
  json(inst.api(`/v1/domains/${id}/verify`, { method: "POST", token: t.token, project: t.project }));

describe("with DNS verification on", () => {
  let inst: Instance;
  let dns: TestDns;
  let a: Tenant, b: Tenant, c: Tenant;
  beforeAll(async () => {
    dns = await startTestDns();
    inst = await startInboxd({ INBOXD_PLAN: "business", INBOXD_DNS_SERVERS: `127.0.0.1:${dns.port}` });
    [a, b, c] = [
      await tenant(inst, "a@a.test", "Team A"),
      await tenant(inst, "b@b.test", "Team B"),
      await tenant(inst, "c@c.test", "Team C"),
    ];
  });
  afterAll(async () => {
    await inst.stop();
    inst.cleanup();
    await dns.close();
  });

  test("two teams hold pending claims on one name; the first verified wins, the other's verify then fails", async () => {
    const first = await claim(inst, a, "contested.example.com");
    expect(first.status).toBe(201);
    expect(first.body.data.status).toBe("pending");
    // Team B learns nothing about team A's claim: its own claim is accepted the same way.
    const second = await claim(inst, b, "contested.example.com");
    expect(second.status).toBe(201);
    expect(second.body.data.status).toBe("pending");
    // B controls the DNS: B's records are published and B verifies first.
    dns.publishDomain(second.body.data);
    const won = await verify(inst, b, second.body.data.id);
    expect(won.body.data.status).toBe("verified");
    // A's records published later (the zone changed hands): the name is already B's.
    dns.publishDomain(first.body.data);
    const lost = await verify(inst, a, first.body.data.id);
    expect(lost.status).toBe(200);
    expect(lost.body.data.status).toBe("failed");
    // Mailboxes follow the verified claim only.
    const mb = await json(
      inst.api("/v1/inboxes", {
        method: "POST",
        token: a.token,
        project: a.project,
        json: { domain_id: first.body.data.id, local_part: "x" },
      }),
    );
    expect(mb.body.code).toBe("domain_not_verified");
    const ok = await json(
      inst.api("/v1/inboxes", {
        method: "POST",
        token: b.token,
        project: b.project,
        json: { domain_id: second.body.data.id, local_part: "x" },
      }),
    );
    expect(ok.status).toBe(201);
    expect(ok.body.data.address).toBe("x@contested.example.com");
  });

  test("a verified name is 422 domain_taken for a third team, with a message that names no one", async () => {
    const r = await claim(inst, c, "Contested.Example.com.");
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("domain_taken");
    expect(r.body.message).toBe("the domain contested.example.com is not available");
    expect(Object.keys(r.body.details).sort()).toEqual(["domain", "field"]);
  });

  test("the same team claiming its own name again is told plainly", async () => {
    const r = await claim(inst, b, "contested.example.com");
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("domain_taken");
    expect(r.body.message).toContain("your team");
  });
});

describe("with DNS verification off", () => {
  let inst: Instance;
  let a: Tenant, b: Tenant;
  beforeAll(async () => {
    inst = await startInboxd({ INBOXD_PLAN: "business", INBOXD_DOMAIN_VERIFY: "off" });
    [a, b] = [await tenant(inst, "a@a.test", "Team A"), await tenant(inst, "b@b.test", "Team B")];
  });
  afterAll(async () => {
    await inst.stop();
    inst.cleanup();
  });

  test("another team cannot claim the name, a name under it or a parent of it; the answer names no one", async () => {
    const own = await claim(inst, a, "lab.example.org");
    expect(own.status).toBe(201);
    expect(own.body.data.status).toBe("verified");
    for (const name of ["lab.example.org", "mail.lab.example.org", "deep.mail.lab.example.org", "example.org"]) {
      const r = await claim(inst, b, name);
      expect([name, r.status, r.body.code]).toEqual([name, 422, "domain_taken"]);
      expect(r.body.message).toBe(`the domain ${name} is not available`);
    }
  });

  test("siblings and look-alikes stay free; the owning team may add names under its own", async () => {
    for (const name of ["other.example.org", "xlab.example.org", "lab.example.org.uk"]) {
      const r = await claim(inst, b, name);
      expect([name, r.status]).toEqual([name, 201]);
    }
    expect((await claim(inst, a, "mail.lab.example.org")).status).toBe(201);
  });
});
