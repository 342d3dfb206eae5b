// RCPT TO (RFC 5321 §4.1.1.3): the address must lead to a live inbox (mail/ingest resolveRecipient:
// exact address, +tag, a domain's catch-all, the instance's catch-all), then the inbox's chaos
// rules at RCPT (docs/chaos.md), then room in its quota. The same inbox twice gets one copy.
import { log } from "../../../lib/log";
import type { CommandDef } from "./types";

/** Recipients per transaction (RFC 5321 §4.5.3.1.8 asks for at least 100). */
const MAX_RECIPIENTS = 1000;

export default {
  verbs: ["RCPT"],
  states: ["mail", "rcpt"],
  outOfOrder: "503 5.5.1 Error: need MAIL command",
  async run(s, c) {
    if (c.verb !== "RCPT") return;
    const t = s.transaction!;
    const addr = c.address;
    if (t.accepted.length >= MAX_RECIPIENTS) return s.reply("452 4.5.3 Error: too many recipients");
    const { ingest, chaos } = s.host.services;
    try {
      const inbox = await ingest.resolveRecipient(addr);
      if (!inbox) {
        s.refused("rcpt", 550, addr);
        return s.reply(`550 5.1.1 <${addr}>: no such inbox here`);
      }
      let index = t.recipients.findIndex((r) => r.inbox.id === inbox.id);
      if (index < 0) {
        const rules = await chaos.rulesOf(inbox);
        const injected = chaos.atRcpt(inbox, rules);
        if (injected) {
          s.refused("rcpt", injected.code, addr);
          return await s.injected(injected);
        }
        const refusal = await ingest.checkRoom(inbox);
        if (refusal) {
          s.refused("rcpt", 452, addr);
          return s.reply(
            refusal.kind === "inbox"
              ? `452 4.2.2 <${addr}>: mailbox full (inbox storage quota reached)`
              : `452 4.3.1 <${addr}>: team storage quota reached`,
          );
        }
        // The envelope keeps the address as sent (a local part may be case-sensitive, RFC 5321 §2.4); the
        // same address in another case is the same recipient, listed once in its first spelling.
        index = t.recipients.push({ inbox, addresses: [addr] }) - 1;
        t.chaos.push(rules);
      } else if (!t.recipients[index]!.addresses.some((a) => a.toLowerCase() === addr.toLowerCase())) {
        t.recipients[index]!.addresses.push(addr);
      }
      t.accepted.push({ address: addr, recipient: index });
      s.state = "rcpt";
      s.reply("250 2.1.5 Accepted");
    } catch (e) {
      log.error({ err: e, to: addr }, "smtp recipient lookup failed");
      s.refused("rcpt", 451, addr);
      s.reply("451 4.3.0 temporary failure looking up the recipient; try again");
    }
  },
} satisfies CommandDef;
