// EHLO, HELO (RFC 5321 §4.1.1.1) and LHLO (RFC 2033 §4.1): greet, list the extensions, and start
// over (any transaction is dropped). An SMTP port answers EHLO/HELO; an LMTP port only LHLO.
import type { CommandDef } from "./types";
import { ANY } from "./types";

export default {
  verbs: ["EHLO", "HELO", "LHLO"],
  states: ANY,
  run(s, c) {
    if (c.verb !== "EHLO" && c.verb !== "HELO" && c.verb !== "LHLO") return;
    if (s.lmtp !== (c.verb === "LHLO")) {
      return s.reply(s.lmtp ? "500 5.5.1 Error: this is an LMTP server; use LHLO" : "500 5.5.1 Error: LHLO is for LMTP; use EHLO");
    }
    s.resetTransaction();
    s.clientName = c.domain;
    s.state = "greeted";
    const hello = `${s.host.name} Nice to meet you, ${c.domain.slice(0, 100)}`;
    if (c.verb === "HELO") return s.reply(`250 ${hello}`);
    s.replyLines(250, [hello, ...s.extensions()]);
  },
} satisfies CommandDef;
