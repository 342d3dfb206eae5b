// The certificate the mail listeners present: generated at first start into the data directory
// (SAN = INBOXD_PUBLIC_HOST, localhost, 127.0.0.1; kept across restarts), or the PEM files named
// by INBOXD_TLS_CERT/INBOXD_TLS_KEY. Read from the POP3 port as a client sees it.
import { afterAll, describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import selfsigned from "selfsigned";
import { startInboxd, type Instance } from "../../support/harness";

const started: Instance[] = [];
afterAll(async () => {
  for (const i of started) {
    await i.stop().catch(() => {});
    i.cleanup();
  }
});

async function start(env: Record<string, string>, dataDir?: string): Promise<Instance> {
  const i = await startInboxd(env, dataDir);
  started.push(i);
  return i;
}

/** The leaf certificate presented on a TLS port, plus whether it verified against `ca`. */
async function presented(
  port: number,
  opts: { servername?: string; ca?: string } = {},
): Promise<{ cert: X509Certificate; authorized: boolean; error: string | null }> {
  return new Promise((resolve, reject) => {
    const s = tls.connect(
      { port, host: "127.0.0.1", servername: opts.servername ?? "localhost", ca: opts.ca, rejectUnauthorized: false },
      () => {
        const peer = s.getPeerCertificate(true);
        resolve({
          cert: new X509Certificate(peer.raw),
          authorized: s.authorized,
          error: s.authorizationError ? String(s.authorizationError) : null,
        });
        s.destroy();
      },
    );
    s.once("error", reject);
  });
}

describe("generated certificate", () => {
  test("SAN holds INBOXD_PUBLIC_HOST, localhost and 127.0.0.1; it is the one in the data directory and verifies for those names", async () => {
    const inst = await start({ INBOXD_PUBLIC_HOST: "mail.example.test" });
    const { cert } = await presented(inst.ports.pop3!);
    const san = cert.subjectAltName ?? "";
    expect(san).toContain("DNS:mail.example.test");
    expect(san).toContain("DNS:localhost");
    expect(san).toContain("IP Address:127.0.0.1");
    expect(cert.checkHost("mail.example.test")).toBe("mail.example.test");
    expect(cert.checkHost("localhost")).toBe("localhost");
    expect(cert.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(cert.checkHost("other.example.test")).toBeUndefined();
    expect(new Date(cert.validTo).getTime()).toBeGreaterThan(Date.now() + 365 * 86400_000);

    const onDisk = readFileSync(join(inst.dataDir, "tls.crt"), "utf8");
    expect(new X509Certificate(onDisk).fingerprint256).toBe(cert.fingerprint256);
    // A client that trusts this certificate verifies the connection by host name.
    for (const servername of ["mail.example.test", "localhost"]) {
      const v = await presented(inst.ports.pop3!, { servername, ca: onDisk });
      expect(v.error).toBeNull();
      expect(v.authorized).toBe(true);
    }
    const wrong = await presented(inst.ports.pop3!, { servername: "other.example.test", ca: onDisk });
    expect(wrong.authorized).toBe(false);

    // Kept across restarts (clients that pinned it keep working).
    await inst.stop();
    const again = await inst.restart();
    started.push(again);
    expect((await presented(again.ports.pop3!)).cert.fingerprint256).toBe(cert.fingerprint256);
  }, 30_000);

  test("a changed INBOXD_PUBLIC_HOST that the kept certificate does not cover gets a new one", async () => {
    const first = await start({ INBOXD_PUBLIC_HOST: "one.example.test" });
    const a = (await presented(first.ports.pop3!)).cert;
    await first.stop();
    const second = await start({ INBOXD_PUBLIC_HOST: "two.example.test" }, first.dataDir);
    const b = (await presented(second.ports.pop3!)).cert;
    expect(b.fingerprint256).not.toBe(a.fingerprint256);
    expect(b.checkHost("two.example.test")).toBe("two.example.test");
    expect(b.checkIP("127.0.0.1")).toBe("127.0.0.1");
    await second.stop();
    // localhost is always covered: switching to it keeps the certificate.
    const third = await start({ INBOXD_PUBLIC_HOST: "localhost" }, first.dataDir);
    expect((await presented(third.ports.pop3!)).cert.fingerprint256).toBe(b.fingerprint256);
  }, 30_000);
});

describe("configured certificate", () => {
  test("INBOXD_TLS_CERT/INBOXD_TLS_KEY are served instead of a generated one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "inboxd-cert-"));
    try {
      const pems = await selfsigned.generate([{ name: "commonName", value: "custom.example.test" }], {
        keySize: 2048,
        algorithm: "sha256",
        extensions: [{ name: "subjectAltName", altNames: [{ type: 2, value: "custom.example.test" }] }],
      } as any);
      writeFileSync(join(dir, "cert.pem"), pems.cert);
      writeFileSync(join(dir, "key.pem"), pems.private);
      const inst = await start({ INBOXD_TLS_CERT: join(dir, "cert.pem"), INBOXD_TLS_KEY: join(dir, "key.pem") });
      const { cert } = await presented(inst.ports.pop3!, { servername: "custom.example.test" });
      expect(cert.fingerprint256).toBe(new X509Certificate(pems.cert).fingerprint256);
      expect(cert.subject).toContain("CN=custom.example.test");
      expect(existsSync(join(inst.dataDir, "tls.crt"))).toBe(false);
      const v = await presented(inst.ports.pop3!, { servername: "custom.example.test", ca: pems.cert });
      expect(v.authorized).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  test("unreadable INBOXD_TLS_CERT stops start-up with a message naming the variables", async () => {
    let message = "";
    const dataDir = mkdtempSync(join(tmpdir(), "inboxd-test-"));
    try {
      await start({ INBOXD_TLS_CERT: "/nonexistent/cert.pem", INBOXD_TLS_KEY: "/nonexistent/key.pem" }, dataDir);
    } catch (e: any) {
      message = e.message;
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(message).toContain("INBOXD_TLS_CERT");
  }, 30_000);
});
