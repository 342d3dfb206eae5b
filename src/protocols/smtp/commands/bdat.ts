// BDAT (RFC 3030 CHUNKING): the session has already read the chunk's bytes (it must, whatever the
// answer, to stay in step with the client) and passes them here. LAST delivers the message. A
// chunk that finds the in-flight budget exhausted gets 452 and ends the transaction (the client
// must RSET after a 4xx to BDAT, RFC 3030 §2).
import { type CommandDef, refusalReply } from "./types";

export default {
  verbs: ["BDAT"],
  states: ["rcpt", "bdat"],
  outOfOrder: "503 5.5.1 Error: need RCPT command",
  async run(s, c) {
    if (c.verb !== "BDAT") return;
    const m = s.incoming!;
    if (m.refused) {
      s.resetTransaction();
      return s.reply(refusalReply(m, s.host.maxBytes));
    }
    if (!c.last) {
      s.state = "bdat";
      return s.reply(`250 2.0.0 ${c.size} octets received`);
    }
    await s.finishMessage();
  },
} satisfies CommandDef;
