#!/usr/bin/env bun
// Reads one message back through ordinary mail clients and checks each copy is byte-identical
// (sha256) to what was sent over SMTP: Python poplib and imaplib, curl (pop3s:// and imaps://)
// and mbsync. A client that is not installed is skipped with a message; the IMAP clients are
// skipped while the IMAP port does not answer. Exit status 1 when any client read different bytes.
//
//   bun scripts/check-clients.ts                      start a throw-away inboxd and check it
//   bun scripts/check-clients.ts --url URL --key KEY  check a running one
//       [--smtp HOST:PORT] (default 127.0.0.1:2525)  [--mail-host HOST] (default 127.0.0.1)
//       [--insecure] (skip certificate verification)  [--only python-poplib,curl-pop3s,...]
//       [--sender swaks|python|nodemailer] (default: the first installed, in that order)
//
// Output: one line per client, "PASS name sha256", "SKIP name: why" or "FAIL name: why".
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import tls from "node:tls";
import net from "node:net";
import { parseFlags } from "../src/cli/flags";

const ROOT = resolve(import.meta.dir, "..");

const opt = parseFlags(process.argv.slice(2));
const work = mkdtempSync(join(tmpdir(), "inboxd-clients-"));
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

function which(bin: string): string | null {
  return Bun.which(bin);
}

async function run(cmd: string[], stdin?: string): Promise<{ code: number; out: Buffer; err: string }> {
  const p = Bun.spawn(cmd, { stdin: stdin === undefined ? "ignore" : "pipe", stdout: "pipe", stderr: "pipe" });
  if (stdin !== undefined) {
    p.stdin!.write(stdin);
    p.stdin!.end();
  }
  const timer = setTimeout(() => p.kill(), 60_000);
  const [out, err] = await Promise.all([new Response(p.stdout).arrayBuffer(), new Response(p.stderr).text()]);
  const code = await p.exited;
  clearTimeout(timer);
  return { code, out: Buffer.from(out), err: err.trim() };
}

/** Starts a throw-away inboxd on free ports when no --url is given. */
async function ownInstance(): Promise<{ url: string; key: string; smtp: string; stop: () => Promise<void> }> {
  const key = `isk_live_check_clients_${randomBytes(12).toString("hex")}`;
  const dataDir = join(work, "data");
  const proc = Bun.spawn([process.execPath, join(ROOT, "src/main.ts"), "serve"], {
    cwd: ROOT,
    env: {
      ...process.env,
      INBOXD_DATA_DIR: dataDir,
      INBOXD_HTTP_PORT: "0",
      INBOXD_SMTP_PORT: "0",
      INBOXD_IMAP_PORT: "0",
      INBOXD_POP3_PORT: "0",
      INBOXD_BOOTSTRAP_KEY: key,
      INBOXD_HOST: "127.0.0.1",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  const dec = new TextDecoder();
  void (async () => {
    for await (const c of proc.stdout as ReadableStream<Uint8Array>) out += dec.decode(c);
  })();
  void (async () => {
    for await (const c of proc.stderr as ReadableStream<Uint8Array>) out += dec.decode(c);
  })();
  const deadline = Date.now() + 30_000;
  while (!/^ready$/m.test(out)) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`inboxd did not start:\n${out}`);
    await Bun.sleep(20);
  }
  const port = (proto: string) => [...out.matchAll(/^listening (\w+) [^\s]+:(\d+)$/gm)].find((m) => m[1] === proto)?.[2];
  return {
    url: `http://127.0.0.1:${port("http")}`,
    key,
    smtp: `127.0.0.1:${port("smtp")}`,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/** The certificate a TLS port presents (PEM), or null when nothing answers TLS there. */
async function presentedCert(host: string, port: number): Promise<string | null> {
  return new Promise((done) => {
    const s = tls.connect({ host, port, servername: "localhost", rejectUnauthorized: false }, () => {
      const raw = s.getPeerCertificate(true).raw;
      s.destroy();
      done(`-----BEGIN CERTIFICATE-----\n${raw.toString("base64").replace(/.{64}/g, "$&\n")}\n-----END CERTIFICATE-----\n`);
    });
    s.setTimeout(5000, () => {
      s.destroy();
      done(null);
    });
    s.on("error", () => done(null));
  });
}

function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = net.connect(port, host, () => {
      s.destroy();
      done(true);
    });
    s.on("error", () => done(false));
    s.setTimeout(3000, () => {
      s.destroy();
      done(false);
    });
  });
}

/** A message exercising what usually breaks: dot lines, a long line, 8-bit-free UTF-8 (QP), CRLF. */
function buildMessage(to: string): string {
  const id = randomBytes(8).toString("hex");
  return (
    [
      "From: Client Check <check@example.com>",
      `To: <${to}>`,
      `Subject: client check ${id}`,
      `Message-ID: <${id}@check.example.com>`,
      `Date: ${new Date().toUTCString().replace("GMT", "+0000")}`,
      "MIME-Version: 1.0",
      "Content-Type: text/plain; charset=utf-8",
      "Content-Transfer-Encoding: quoted-printable",
      "",
      "First line.",
      ".A line starting with a dot",
      "..two dots",
      ".",
      "Gr=C3=BC=C3=9Fe =E2=80=94 quoted-printable UTF-8",
      "x".repeat(70) + "=",
      "y".repeat(70),
      "",
      "Last line.",
    ].join("\r\n") + "\r\n"
  );
}

async function sendMessage(smtp: string, from: string, to: string, raw: string): Promise<string> {
  const [host, port] = smtp.split(":") as [string, string];
  const file = join(work, "message.eml");
  writeFileSync(file, raw);
  const sender = opt.sender ?? "auto";
  if ((sender === "auto" || sender === "swaks") && which("swaks")) {
    // swaks ends DATA with CRLF . CRLF itself: a file that already ends in CRLF would gain a blank line.
    writeFileSync(file, raw.replace(/\r\n$/, ""));
    const r = await run(["swaks", "--silent", "2", "--server", host, "--port", port, "--from", from, "--to", to, "--data", `@${file}`]);
    if (r.code !== 0) throw new Error(`swaks failed: ${r.err}${r.out}`);
    return "swaks";
  }
  if ((sender === "auto" || sender === "python") && which("python3")) {
    const py = `import smtplib,sys\ns=smtplib.SMTP(sys.argv[1],int(sys.argv[2]))\ns.sendmail(sys.argv[3],[sys.argv[4]],open(sys.argv[5],'rb').read())\ns.quit()`;
    const r = await run(["python3", "-c", py, host, port, from, to, file]);
    if (r.code !== 0) throw new Error(`python smtplib failed: ${r.err}`);
    return "python3 smtplib";
  }
  const nodemailer = (await import("nodemailer")).default;
  const t = nodemailer.createTransport({ host, port: Number(port), secure: false, ignoreTLS: true });
  await t.sendMail({ envelope: { from, to: [to] }, raw });
  t.close();
  return "nodemailer";
}

interface Ctx {
  mailHost: string;
  user: string;
  password: string;
  pop3Port: number;
  imapPort: number;
  popCa: string | null;
  imapCa: string | null;
  insecure: boolean;
}

interface Client {
  name: string;
  bin: string;
  proto: "pop3" | "imap";
  fetch(c: Ctx): Promise<Buffer>;
}

const PY_SSL = `import ssl,sys
def ctx(ca, insecure):
    c = ssl.create_default_context(cafile=None if insecure else ca)
    if insecure:
        c.check_hostname = False
        c.verify_mode = ssl.CERT_NONE
    else:
        # Trust exactly the presented certificate; the name may be a public host we reach via another address.
        c.check_hostname = False
    return c
`;

const clients: Client[] = [
  {
    name: "python-poplib",
    bin: "python3",
    proto: "pop3",
    async fetch(c) {
      const py = `${PY_SSL}
import poplib
host, port, user, pw, ca, insecure = sys.argv[1:7]
p = poplib.POP3_SSL(host, int(port), context=ctx(ca, insecure == "1"))
p.user(user); p.pass_(pw)
resp, lines, octets = p.retr(1)
p.quit()
sys.stdout.buffer.write(b"\\r\\n".join(lines) + b"\\r\\n")
`;
      const r = await run([
        "python3",
        "-c",
        py,
        c.mailHost,
        String(c.pop3Port),
        c.user,
        c.password,
        writeCa(c.popCa),
        c.insecure ? "1" : "0",
      ]);
      if (r.code !== 0) throw new Error(r.err.split("\n").slice(-3).join(" "));
      return r.out;
    },
  },
  {
    name: "python-imaplib",
    bin: "python3",
    proto: "imap",
    async fetch(c) {
      const py = `${PY_SSL}
import imaplib
host, port, user, pw, ca, insecure = sys.argv[1:7]
m = imaplib.IMAP4_SSL(host, int(port), ssl_context=ctx(ca, insecure == "1"))
m.login(user, pw)
m.select("INBOX", readonly=True)
typ, data = m.fetch("1", "(BODY.PEEK[])")
m.logout()
if typ != "OK" or not data or not isinstance(data[0], tuple):
    raise SystemExit("FETCH failed: %r %r" % (typ, data))
sys.stdout.buffer.write(data[0][1])
`;
      const r = await run([
        "python3",
        "-c",
        py,
        c.mailHost,
        String(c.imapPort),
        c.user,
        c.password,
        writeCa(c.imapCa),
        c.insecure ? "1" : "0",
      ]);
      if (r.code !== 0) throw new Error(r.err.split("\n").slice(-3).join(" "));
      return r.out;
    },
  },
  {
    name: "curl-pop3s",
    bin: "curl",
    proto: "pop3",
    async fetch(c) {
      const tlsArgs = c.insecure ? ["--insecure"] : ["--cacert", writeCa(c.popCa)];
      const r = await run([
        "curl",
        "-sS",
        "--max-time",
        "30",
        ...tlsArgs,
        "--user",
        `${c.user}:${c.password}`,
        `pop3s://${c.mailHost}:${c.pop3Port}/1`,
      ]);
      if (r.code !== 0) throw new Error(`curl exit ${r.code}: ${r.err}`);
      return r.out;
    },
  },
  {
    name: "curl-imaps",
    bin: "curl",
    proto: "imap",
    async fetch(c) {
      const tlsArgs = c.insecure ? ["--insecure"] : ["--cacert", writeCa(c.imapCa)];
      const r = await run([
        "curl",
        "-sS",
        "--max-time",
        "30",
        ...tlsArgs,
        "--user",
        `${c.user}:${c.password}`,
        `imaps://${c.mailHost}:${c.imapPort}/INBOX/;UID=1`,
      ]);
      if (r.code !== 0) throw new Error(`curl exit ${r.code}: ${r.err}`);
      return r.out;
    },
  },
  {
    name: "mbsync",
    bin: "mbsync",
    proto: "imap",
    async fetch(c) {
      const maildir = join(work, "maildir");
      mkdirSync(maildir, { recursive: true });
      const cfg = join(work, "mbsyncrc");
      writeFileSync(
        cfg,
        [
          "IMAPAccount inboxd",
          `Host ${c.mailHost}`,
          `Port ${c.imapPort}`,
          `User "${c.user}"`,
          `Pass "${c.password}"`,
          "SSLType IMAPS",
          // mbsync cannot skip verification; a directly matched certificate is always trusted.
          `CertificateFile ${writeCa(c.imapCa)}`,
          "",
          "IMAPStore remote",
          "Account inboxd",
          "",
          "MaildirStore local",
          `Path ${maildir}/`,
          `Inbox ${maildir}/INBOX`,
          "",
          "Channel check",
          "Far :remote:",
          "Near :local:",
          "Patterns INBOX",
          "Sync Pull",
          "Create Near",
          "SyncState *",
          "",
        ].join("\n"),
        { mode: 0o600 },
      );
      const r = await run(["mbsync", "-c", cfg, "-q", "check"]);
      if (r.code !== 0) throw new Error(`mbsync exit ${r.code}: ${r.err}`);
      const files = ["new", "cur"].flatMap((d) => {
        try {
          return readdirSync(join(maildir, "INBOX", d)).map((f) => join(maildir, "INBOX", d, f));
        } catch {
          return [];
        }
      });
      if (files.length !== 1) throw new Error(`expected 1 message in the Maildir, found ${files.length}`);
      return fromMaildir(readFileSync(files[0]!));
    },
  },
];

/**
 * mbsync stores what it fetched in Maildir form: LF line ends and its own X-TUID header in the
 * header block. Undoing exactly those two local changes gives the bytes it received.
 */
function fromMaildir(file: Buffer): Buffer {
  const text = file.toString("latin1");
  const sep = text.indexOf("\n\n");
  const head = sep < 0 ? text : text.slice(0, sep + 1);
  const body = sep < 0 ? "" : text.slice(sep + 1);
  const cleaned = head.replace(/^X-TUID: [^\n]*\n/m, "") + body;
  return Buffer.from(cleaned.replace(/\n/g, "\r\n"), "latin1");
}

let caCount = 0;
function writeCa(pem: string | null): string {
  const f = join(work, `ca-${caCount++}.pem`);
  writeFileSync(f, pem ?? "");
  return f;
}

async function main(): Promise<number> {
  let own: Awaited<ReturnType<typeof ownInstance>> | null = null;
  let url = opt.url ?? process.env.INBOXD_URL;
  let key = opt.key ?? process.env.INBOXD_API_KEY;
  let smtp = opt.smtp ?? process.env.INBOXD_SMTP ?? "127.0.0.1:2525";
  if (!url) {
    own = await ownInstance();
    ({ url, key, smtp } = own);
  }
  if (!key) throw new Error("--key (or INBOXD_API_KEY) is required with --url");
  const only = opt.only ? new Set(opt.only.split(",")) : null;
  const mailHost = opt["mail-host"] ?? "127.0.0.1";
  let failures = 0;
  let inboxId: string | null = null;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(url + path, {
      ...init,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...(init.headers ?? {}) },
    });
  try {
    const ib = await api("/v1/inboxes", { method: "POST", body: JSON.stringify({ name: "client check" }) });
    if (ib.status !== 201) throw new Error(`creating an inbox: ${ib.status} ${await ib.text()}`);
    const inbox = ((await ib.json()) as any).data;
    inboxId = inbox.id;
    const cr = ((await (await api(`/v1/inboxes/${inbox.id}/credentials`)).json()) as any).data;

    const raw = buildMessage(inbox.address);
    const sentHash = sha(Buffer.from(raw));
    const via = await sendMessage(smtp, "check@example.com", inbox.address, raw);
    // The 250 comes after the commit, but a remote server may be behind a queue: wait briefly.
    let messageId: string | null = null;
    for (let i = 0; i < 100 && !messageId; i++) {
      const list = (await (await api(`/v1/inboxes/${inbox.id}/messages`)).json()) as any;
      messageId = list.data?.[0]?.id ?? null;
      if (!messageId) await Bun.sleep(100);
    }
    if (!messageId) throw new Error("the message did not arrive");
    console.log(`sent ${Buffer.byteLength(raw)} bytes via ${via}, sha256 ${sentHash}`);

    const report = (status: "PASS" | "FAIL" | "SKIP", name: string, text: string) => {
      if (status === "FAIL") failures++;
      console.log(`${status} ${name}${status === "PASS" ? " " : ": "}${text}`);
    };
    const restRaw = Buffer.from(await (await api(`/v1/messages/${messageId}/raw`)).arrayBuffer());
    report(
      sha(restRaw) === sentHash ? "PASS" : "FAIL",
      "rest-raw",
      sha(restRaw) === sentHash ? sha(restRaw) : `sha256 ${sha(restRaw)} differs`,
    );

    const imapUp = cr.imap.port > 0 && (await portOpen(mailHost, cr.imap.port));
    const ctx: Ctx = {
      mailHost,
      user: cr.username,
      password: cr.password,
      pop3Port: cr.pop3.port,
      imapPort: cr.imap.port,
      popCa: await presentedCert(mailHost, cr.pop3.port),
      imapCa: imapUp ? await presentedCert(mailHost, cr.imap.port) : null,
      insecure: opt.insecure === "true",
    };
    for (const client of clients) {
      if (only && !only.has(client.name)) continue;
      if (!which(client.bin)) {
        report("SKIP", client.name, `${client.bin} is not installed`);
        continue;
      }
      if (client.proto === "imap" && (!imapUp || !ctx.imapCa)) {
        report("SKIP", client.name, `the IMAP port ${cr.imap.port} does not answer`);
        continue;
      }
      try {
        const got = await client.fetch(ctx);
        const h = sha(got);
        if (h === sentHash) report("PASS", client.name, h);
        else {
          writeFileSync(join(work, `${client.name}.eml`), got);
          report("FAIL", client.name, `sha256 ${h} differs (${got.length} bytes, kept in ${join(work, `${client.name}.eml`)})`);
        }
      } catch (e: any) {
        report("FAIL", client.name, String(e?.message ?? e));
      }
    }
  } finally {
    if (inboxId) await api(`/v1/inboxes/${inboxId}`, { method: "DELETE" }).catch(() => {});
    if (own) await own.stop();
    if (failures === 0) rmSync(work, { recursive: true, force: true });
  }
  return failures > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`check-clients: ${e?.message ?? e}`);
    process.exit(2);
  },
);
