// DATA (RFC 5321 §4.1.1.4): 354, then the session reads the body through the DataDecoder (which
// ends it only at CRLF.CRLF) and hands the message to deliver.ts. BINARYMIME needs BDAT (RFC 3030 §3).
import type { CommandDef } from "./types";

export default {
  verbs: ["DATA"],
  states: ["rcpt"],
  outOfOrder: "503 5.5.1 Error: need RCPT command",
  run(s, c) {
    if (c.verb !== "DATA") return;
    if (s.transaction!.body === "BINARYMIME") return s.reply("503 5.5.1 Error: BODY=BINARYMIME requires BDAT");
    s.reply("354 End data with <CR><LF>.<CR><LF>");
    s.startData();
  },
} satisfies CommandDef;
