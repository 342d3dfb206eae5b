// MAIL FROM (RFC 5321 §4.1.1.2) with SIZE (RFC 1870), BODY (RFC 6152, RFC 3030 BINARYMIME),
// SMTPUTF8 (RFC 6531) and AUTH= (RFC 4954 §5). A declared size over the limit is refused at once;
// one over what the in-flight budget has left now gets 452 4.3.1 (try later; docs/security.md).
import { type CommandDef, OVER_BUDGET } from "./types";

export default {
  verbs: ["MAIL"],
  states: ["greeted"],
  outOfOrder: "503 5.5.1 Error: nested MAIL command",
  run(s, c) {
    if (c.verb !== "MAIL") return;
    if (s.host.authRequired && s.user === null) {
      s.refused("mail", 530, c.address);
      return s.reply("530 5.7.0 Authentication required");
    }
    const max = s.host.maxBytes;
    if (c.size !== null && c.size > max) {
      s.refused("mail", 552, c.address);
      return s.reply(`552 5.3.4 message size exceeds fixed maximum message size ${max}`);
    }
    if (c.size !== null && c.size > s.host.services.ingest.budget.remaining) {
      s.refused("mail", 452, c.address);
      return s.reply(OVER_BUDGET);
    }
    s.beginTransaction({ from: c.address, body: c.body, recipients: [], accepted: [], chaos: [] });
    s.state = "mail";
    s.reply("250 2.1.0 Accepted");
  },
} satisfies CommandDef;
