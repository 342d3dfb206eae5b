// A network listener the server starts and stops (HTTP, SMTP, IMAP, POP3 …).
import type { AppContext } from "../runtime/context";
import type { Services } from "../services";

export interface Listener {
  proto: string;
  port: number;
  stop(): Promise<void>;
}

export type ListenerFactory = (ctx: AppContext, services: Services) => Promise<Listener | null>;
