// AUTHENTICATE PLAIN (RFC 3501 §6.2.2, RFC 4616), with the initial response on the command
// line (SASL-IR, RFC 4959) or after a "+" continuation.
import { atomOf } from "../parser/tokens";
import { completeLogin } from "../auth";
import { type CommandDef, REFUSED_LINE } from "./types";

export default {
  names: ["AUTHENTICATE"],
  states: ["not-authenticated"],
  async run(s, c) {
    const mech = atomOf(c.args[0], "mechanism").toUpperCase();
    if (mech !== "PLAIN") return "NO [CANNOT] Only AUTHENTICATE PLAIN is supported";
    if (!s.secure && s.host.startTls) return "NO [PRIVACYREQUIRED] Use STARTTLS first";
    if (c.args.length > 2) return "BAD Too many arguments";
    let response: string;
    if (c.args[1]) response = atomOf(c.args[1], "initial response");
    else {
      await s.sendNow("+ ");
      const line = await s.readLine(true);
      if (line === null) return "";
      if (line === REFUSED_LINE) return "BAD AUTHENTICATE response too long";
      response = line.toString("latin1").trim();
    }
    if (response === "*") return "BAD AUTHENTICATE cancelled";
    if (response === "=") response = "";
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(response)) return "BAD Invalid base64";
    const parts = Buffer.from(response, "base64").toString("utf8").split("\0");
    if (parts.length !== 3) return "BAD Invalid PLAIN response";
    const [authzid, user, pass] = parts as [string, string, string];
    if (authzid && authzid.toLowerCase() !== user.toLowerCase()) return "NO [AUTHORIZATIONFAILED] Cannot act as another user";
    return completeLogin(s, user, pass, "AUTHENTICATE");
  },
} satisfies CommandDef;
