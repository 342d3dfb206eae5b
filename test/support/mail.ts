// Helpers for tests that send real mail into a real inboxd (nodemailer and raw SMTP sockets).
import nodemailer from "nodemailer";
import { connect, type Socket } from "node:net";
import { json, type Instance } from "./harness";

export async function createInbox(inst: Instance, body: Record<string, unknown> = {}, token?: string, project?: string) {
  const r = await json(inst.api("/v1/inboxes", { method: "POST", json: body, token, project }));
  if (r.status !== 201) throw new Error(`create inbox: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data as { id: string; address: string; message_count: number; unread_count: number; [k: string]: any };
}

export function transport(inst: Instance, opts: Record<string, unknown> = {}) {
  const t = nodemailer.createTransport({
    host: "127.0.0.1",
    port: inst.ports.smtp,
    secure: false,
    tls: { rejectUnauthorized: false },
    ...opts,
  } as any);
  // "451 4.3.0 temporary failure storing the message" is the reply to an unexpected error in the
  // server: the failure a test then reports carries the server's own account of it (its log).
  const send = t.sendMail.bind(t);
  t.sendMail = (async (mail: any) => {
    try {
      return await send(mail);
    } catch (e: any) {
      if (typeof e?.response === "string" && e.response.includes("temporary failure storing")) {
        const said = inst
          .output()
          .split("\n")
          .filter((l) => /delivery failed/.test(l));
        e.message += `\nthe server logged:\n${said.slice(-5).join("\n")}`;
      }
      throw e;
    }
  }) as typeof t.sendMail;
  return t;
}

/** The id in inboxd's SMTP 250 ("2.0.0 stored <id>"). */
export const storedId = (response: string) => /stored ([0-9A-Z]{26})/.exec(response)![1]!;

/** Sends one mail over inboxd's SMTP (nodemailer message; `opts` as for `transport`); the stored message's id. */
export async function sendMail(inst: Instance, mail: Record<string, unknown>, opts: Record<string, unknown> = {}): Promise<string> {
  const t = transport(inst, opts);
  try {
    return storedId((await t.sendMail(mail)).response);
  } finally {
    t.close();
  }
}

/** Sends exact bytes (nodemailer `raw`) with an explicit envelope. */
export async function sendRaw(inst: Instance, to: string | string[], raw: string | Buffer, from = "sender@example.com") {
  const t = transport(inst);
  try {
    return await t.sendMail({ envelope: { from, to: Array.isArray(to) ? to : [to] }, raw });
  } finally {
    t.close();
  }
}

/** Waits for the next message of an inbox through the long-poll route. */
export async function nextMessage(inst: Instance, inboxId: string, after?: string, view = "full") {
  const q = new URLSearchParams({ wait: "10", view });
  if (after) q.set("after", after);
  const r = await json(inst.api(`/v1/inboxes/${inboxId}/messages/latest?${q}`));
  if (r.status !== 200) throw new Error(`latest: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
}

/** A line-oriented SMTP client for asserting exact replies. */
export class SmtpDialog {
  private buf = "";
  private waiters: Array<() => void> = [];
  private constructor(readonly socket: Socket) {
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      this.buf += d;
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /**
   * `localAddress` picks the client address (any 127.x.y.z reaches a loopback listener on Linux);
   * `first` is written as soon as the connection is up (a balancer's PROXY header).
   */
  static async open(port: number, localAddress?: string, first?: Buffer): Promise<{ dialog: SmtpDialog; greeting: string }> {
    const socket = connect({ port, host: "127.0.0.1", localAddress });
    await new Promise<void>((res, rej) => {
      socket.once("connect", res);
      socket.once("error", rej);
    });
    if (first) socket.write(first);
    const dialog = new SmtpDialog(socket);
    return { dialog, greeting: await dialog.reply() };
  }

  /** One complete (possibly multi-line) reply. */
  async reply(timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = /^(?:\d{3}-.*\r\n)*\d{3}(?: .*)?\r\n/.exec(this.buf);
      if (m) {
        this.buf = this.buf.slice(m[0].length);
        return m[0];
      }
      if (Date.now() > deadline) throw new Error(`no SMTP reply; buffer: ${JSON.stringify(this.buf)}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  async cmd(line: string): Promise<string> {
    this.socket.write(line + "\r\n");
    return this.reply();
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  close(): void {
    this.socket.destroy();
  }
}

export const code = (reply: string) => Number(reply.slice(0, 3));
