// The mail listeners, each in protocols/<name>/. Order matters only for the start-up log.
import type { ListenerFactory } from "./listener";
import { lmtpListener, smtpListener } from "./smtp";
import { pop3Listener, pop3PlainListener } from "./pop3";
import { imapListener, imapPlainListener } from "./imap";

export const protocolListeners: ListenerFactory[] = [
  smtpListener,
  lmtpListener,
  pop3Listener,
  pop3PlainListener,
  imapListener,
  imapPlainListener,
];
