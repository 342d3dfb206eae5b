// The command table: one file per command, looked up by name.
import type { CommandDef } from "./types";
import capability from "./capability";
import login from "./login";
import authenticate from "./authenticate";
import logout from "./logout";
import noop from "./noop";
import check from "./check";
import id from "./id";
import enable from "./enable";
import namespace from "./namespace";
import list from "./list";
import lsub from "./lsub";
import subscribe from "./subscribe";
import select from "./select";
import examine from "./examine";
import status from "./status";
import fetch from "./fetch";
import search from "./search";
import store from "./store";
import expunge from "./expunge";
import close from "./close";
import unselect from "./unselect";
import idle from "./idle";
import starttls from "./starttls";
import create from "./create";
import deleteMailbox from "./delete";
import rename from "./rename";
import append from "./append";
import copy from "./copy";
import move from "./move";

export type { SessionState, CommandDef } from "./types";

const all: CommandDef[] = [
  capability,
  login,
  authenticate,
  logout,
  noop,
  check,
  id,
  enable,
  namespace,
  list,
  lsub,
  subscribe,
  select,
  examine,
  status,
  fetch,
  search,
  store,
  expunge,
  close,
  unselect,
  idle,
  starttls,
  create,
  deleteMailbox,
  rename,
  append,
  copy,
  move,
];

export const commands = new Map<string, CommandDef>();
for (const def of all) for (const n of def.names) commands.set(n, def);
