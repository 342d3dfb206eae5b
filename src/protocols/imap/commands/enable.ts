// ENABLE (RFC 5161): CONDSTORE and QRESYNC (RFC 7162; QRESYNC implies CONDSTORE) are the
// extensions here that need enabling; other names are accepted and not reported.
import { AUTHED, type CommandDef } from "./types";

export default {
  names: ["ENABLE"],
  states: AUTHED,
  async run(s, c) {
    if (c.args.length === 0) return "BAD ENABLE needs at least one capability";
    if (c.args.some((a) => a.t !== "atom")) return "BAD ENABLE takes capability names";
    const enabled: string[] = [];
    for (const a of c.args) {
      const name = a.t === "atom" ? a.v.toUpperCase() : "";
      if (name === "CONDSTORE" && !s.condstore) {
        s.condstore = true;
        enabled.push("CONDSTORE");
      } else if (name === "QRESYNC" && !s.qresync) {
        s.qresync = true;
        if (s.mailbox) s.mailbox.vanished = true;
        if (!s.condstore) s.condstore = true;
        enabled.push("QRESYNC");
      }
    }
    await s.write(`* ENABLED${enabled.map((e) => ` ${e}`).join("")}\r\n`);
    return "OK ENABLE completed";
  },
} satisfies CommandDef;
