// STARTTLS (RFC 3207) with the server's certificate: 220 in clear, then TLS on the same socket and
// the session starts over (no greeting, no log-in, no transaction; the client sends EHLO again).
// Anything the client pipelined after STARTTLS arrived in clear and is discarded (§4.2).
import type { CommandDef } from "./types";

export default {
  verbs: ["STARTTLS"],
  states: ["greeted"],
  outOfOrder: "503 5.5.1 Error: STARTTLS is not allowed during a mail transaction",
  run(s) {
    if (s.secure) return s.reply("503 5.5.1 Error: TLS already active");
    s.reply("220 2.0.0 Ready to start TLS");
    s.startTls();
  },
} satisfies CommandDef;
