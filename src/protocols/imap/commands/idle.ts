// IDLE (RFC 2177): after "+", changes to the inbox (new mail, deletions and flag changes from any
// channel) are pushed as they happen, until the client sends DONE.
import { AUTHED, type CommandDef } from "./types";

export default {
  names: ["IDLE"],
  states: AUTHED,
  async run(s, c) {
    if (c.args.length) return "BAD IDLE takes no arguments";
    await s.sendNow("+ idling");
    s.idling = true;
    // Anything that happened before IDLE started is reported now, not at the first event.
    await s.pushUpdates(true);
    await s.flush();
    const line = await s.readLine();
    s.idling = false;
    if (line === null) return "";
    if (line.toString("latin1").trim().toUpperCase() !== "DONE") return "BAD Expected DONE";
    return "OK IDLE terminated";
  },
} satisfies CommandDef;
