// LOGIN (RFC 3501 §6.2.3): username = inbox address, password = the inbox's IMAP password.
import { astring } from "../parser/tokens";
import { completeLogin } from "../auth";
import type { CommandDef } from "./types";

export default {
  names: ["LOGIN"],
  states: ["not-authenticated"],
  async run(s, c) {
    if (c.args.length !== 2) return "BAD LOGIN takes a username and a password";
    if (!s.secure && s.host.startTls) return "NO [PRIVACYREQUIRED] Use STARTTLS first";
    return completeLogin(s, astring(c.args[0], "username"), astring(c.args[1], "password"), "LOGIN");
  },
} satisfies CommandDef;
