// STARTTLS (RFC 3501 §6.2.1) on the optional plain port: the OK goes out in clear, then the
// same socket carries TLS and the session starts over (RFC 3501 §6.2.1: forget capabilities).
import type { CommandDef } from "./types";

export default {
  names: ["STARTTLS"],
  states: ["not-authenticated"],
  async run(s, c) {
    if (s.secure || !s.host.startTls) return "BAD TLS is already active";
    await s.sendNow(`${c.tag} OK Begin TLS negotiation now`);
    s.upgrade(s.host.startTls(s.socket));
    return "";
  },
} satisfies CommandDef;
