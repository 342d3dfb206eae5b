// The end of a message (DATA's CRLF.CRLF or BDAT LAST): the inboxes' chaos rules at DATA
// (docs/chaos.md), then mail/ingest.deliver, which resolves only after the commit and the WAL
// flush. Only then is the 250 queued. SMTP answers once for the message; LMTP (RFC 2033 §4.2)
// once per accepted recipient, each inbox delivered on its own.
import { log } from "../../lib/log";
import { isStorageFull } from "../../lib/errors";
import type { Receipt, Recipient } from "../../mail/ingest";
import { InboxGone, QuotaExceeded } from "../../mail/ingest";
import type { Services } from "../../services";
import type { ChaosRuleRecord } from "../../storage/mail";
import type { SmtpSession } from "./session";
import { type MessageBytes, sizeOf } from "../../mail/incoming";

interface Outcome {
  code: number;
  text: string;
  delayMs: number;
  ids?: string[];
}

async function outcome(
  services: Services,
  raw: MessageBytes,
  from: string | null,
  recipients: Recipient[],
  chaos: ChaosRuleRecord[][],
  receipt: Receipt,
): Promise<Outcome> {
  try {
    // Fault injection first: a message that gets an injected failure is stored for no one.
    const injected = services.chaos.atData(recipients.map((r, i) => ({ inbox: r.inbox, rules: chaos[i]! })));
    if (injected) return { code: injected.code, text: injected.text, delayMs: injected.delayMs };
    const r = await services.ingest.deliver(raw, from, recipients, receipt);
    return { code: 250, text: `2.0.0 stored ${r.messageIds.join(",")}`, delayMs: 0, ids: r.messageIds };
  } catch (e) {
    if (e instanceof QuotaExceeded)
      return { code: 552, text: `5.2.2 ${e.refusal.kind} storage quota exceeded by this message`, delayMs: 0 };
    if (e instanceof InboxGone) return { code: 550, text: `5.1.1 <${e.address}>: inbox was deleted`, delayMs: 0 };
    if (isStorageFull(e)) {
      log.error({ err: e }, "smtp delivery failed: storage full");
      return { code: 452, text: "4.3.1 insufficient system storage; try again later", delayMs: 0 };
    }
    log.error({ err: e }, "smtp delivery failed");
    return { code: 451, text: "4.3.0 temporary failure storing the message; try again", delayMs: 0 };
  }
}

export async function deliverMessage(s: SmtpSession, raw: MessageBytes): Promise<void> {
  const t = s.transaction!;
  s.resetTransaction();
  const from = t.from === "" ? null : t.from;
  const services = s.host.services;
  const started = performance.now();
  const receipt: Receipt = { clientIp: s.ip, helo: s.clientName };
  let results: Outcome[];
  if (!s.lmtp) results = [await outcome(services, raw, from, t.recipients, t.chaos, receipt)];
  else results = await Promise.all(t.recipients.map((r, i) => outcome(services, raw, from, [r], [t.chaos[i]!], receipt)));
  const delay = Math.max(...results.map((r) => r.delayMs));
  if (delay > 0) await Bun.sleep(delay);
  if (!s.lmtp) s.reply(`${results[0]!.code} ${results[0]!.text}`);
  else {
    for (const a of t.accepted) {
      const r = results[a.recipient]!;
      s.reply(r.code === 250 ? `250 ${r.text} for <${a.address}>` : `${r.code} ${r.text}`);
    }
  }
  if (results.some((r) => r.code === 421)) s.close();
  else s.flushUnlessPipelined();
  const to = s.lmtp ? t.recipients.map((r) => r.addresses) : [t.accepted.map((a) => a.address)];
  record(s, from, to, sizeOf(raw), results, (performance.now() - started) / 1000);
}

/** The transaction's log line(s) and series: one line per message (per recipient's result on LMTP). */
function record(s: SmtpSession, from: string | null, to: string[][], size: number, results: Outcome[], seconds: number): void {
  const m = s.host.ctx.metrics;
  const proto = s.lmtp ? "lmtp" : "smtp";
  m.smtpDeliveryDuration.observe(seconds);
  results.forEach((r, i) => {
    m.smtpResult(r.code);
    if (r.code === 250) m.smtpBytes.inc(size);
    const fields = {
      proto,
      client: s.ip,
      from: from ?? "<>",
      to: to[i] ?? [],
      size,
      code: r.code,
      ...(r.ids ? { ids: r.ids } : { reply: r.text }),
      ms: Math.round(seconds * 1000),
    };
    log.info(fields, `${proto} transaction`);
  });
}
