// ID (RFC 2971): the client's parameters are accepted and ignored; ours name the server.
import { ANY, type CommandDef } from "./types";
import pkg from "../../../../package.json";

export default {
  names: ["ID"],
  states: ANY,
  async run(s, c) {
    const a = c.args[0];
    if (c.args.length !== 1 || !a || (a.t !== "list" && !(a.t === "atom" && a.v.toUpperCase() === "NIL"))) {
      return "BAD ID takes a parameter list or NIL";
    }
    await s.write(`* ID ("name" "inboxd" "vendor" "inboxd" "version" "${pkg.version}")\r\n`);
    return "OK ID completed";
  },
} satisfies CommandDef;
