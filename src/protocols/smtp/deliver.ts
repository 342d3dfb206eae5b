// The end of a message (DATA's CRLF.CRLF or BDAT LAST): the inboxes' chaos rules at DATA
// (docs/chaos.md), then mail/ingest.deliver, which resolves only after the commit and the WAL
// flush. Only then is the 250 queued. SMTP answers once for the message; LMTP (RFC 2033 §4.2)
// once per accepted recipient, each inbox delivered on its own.
import type { Recipient } from "../../mail/ingest";
import { InboxGone, QuotaExceeded } from "../../mail/ingest";
import type { Services } from "../../services";
import type { ChaosRuleRecord } from "../../storage/mail";
import type { SmtpSession } from "./session";

interface Outcome {
  code: number;
  text: string;
  delayMs: number;
}

async function outcome(
  services: Services,
  raw: Buffer,
  from: string | null,
  recipients: Recipient[],
  chaos: ChaosRuleRecord[][],
): Promise<Outcome> {
  try {
    // Fault injection first: a message that gets an injected failure is stored for no one.
    const injected = services.chaos.atData(recipients.map((r, i) => ({ inbox: r.inbox, rules: chaos[i]! })));
    if (injected) return { code: injected.code, text: injected.text, delayMs: injected.delayMs };
    const r = await services.ingest.deliver(raw, from, recipients);
    return { code: 250, text: `2.0.0 stored ${r.messageIds.join(",")}`, delayMs: 0 };
  } catch (e) {
    if (e instanceof QuotaExceeded)
      return { code: 552, text: `5.2.2 ${e.refusal.kind} storage quota exceeded by this message`, delayMs: 0 };
    if (e instanceof InboxGone) return { code: 550, text: `5.1.1 <${e.address}>: inbox was deleted`, delayMs: 0 };
    console.error("smtp: delivery failed", e);
    return { code: 451, text: "4.3.0 temporary failure storing the message; try again", delayMs: 0 };
  }
}

export async function deliverMessage(s: SmtpSession, raw: Buffer): Promise<void> {
  const t = s.transaction!;
  s.resetTransaction();
  const from = t.from === "" ? null : t.from;
  const services = s.host.services;
  let results: Outcome[];
  if (!s.lmtp) results = [await outcome(services, raw, from, t.recipients, t.chaos)];
  else results = await Promise.all(t.recipients.map((r, i) => outcome(services, raw, from, [r], [t.chaos[i]!])));
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
}
