// A client of SpamAssassin's spamd (the SPAMC/1.5 protocol, as Debian's `spamc -R` speaks it):
// one REPORT request per message, answered with the score, the threshold and the report whose
// table names every rule that fired. No maintained npm client exists (the old ones are
// abandoned); the protocol is a request line, a length header and the message.
import { connect } from "node:net";

export interface SpamRule {
  name: string;
  score: number;
  description: string;
}

export interface SpamReport {
  score: number;
  threshold: number;
  isSpam: boolean;
  rules: SpamRule[];
}

/** spamd could not be reached or answered something else than a report. */
export class SpamdError extends Error {}

/** The REPORT request for one message. */
export function spamcRequest(raw: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`REPORT SPAMC/1.5\r\nContent-length: ${raw.byteLength}\r\n\r\n`, "latin1"), raw]);
}

/** spamd's whole answer (status line, headers, report) as a report; throws SpamdError otherwise. */
export function parseSpamdResponse(text: string): SpamReport {
  const status = /^SPAMD\/\d+\.\d+\s+(\d+)\s+(\S+)/.exec(text);
  if (!status) throw new SpamdError(`spamd answered something else: ${JSON.stringify(text.slice(0, 80))}`);
  if (status[1] !== "0") throw new SpamdError(`spamd refused the message: ${status[1]} ${status[2]}`);
  const verdict = /^Spam:\s*(True|False|Yes|No)\s*;\s*(-?[\d.]+)\s*\/\s*(-?[\d.]+)/im.exec(text);
  if (!verdict) throw new SpamdError("spamd's answer has no Spam: header");
  const headerEnd = text.indexOf("\r\n\r\n");
  return {
    isSpam: /^(true|yes)$/i.test(verdict[1]!),
    score: Number(verdict[2]),
    threshold: Number(verdict[3]),
    rules: headerEnd < 0 ? [] : reportRules(text.slice(headerEnd + 4)),
  };
}

/**
 * The rules of the report's table (" pts rule name  description", a dashed line, then one rule per
 * line; a long description continues on indented lines without a score).
 */
export function reportRules(report: string): SpamRule[] {
  const lines = report.split(/\r?\n/);
  const start = lines.findIndex((l) => /^-{3,}\s+-{3,}\s+-{3,}/.test(l.trim()));
  if (start < 0) return [];
  const rules: SpamRule[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === "") break;
    const m = /^\s*(-?\d+(?:\.\d+)?)\s+([A-Z0-9_]+)\s*(.*)$/.exec(line);
    if (m) rules.push({ score: Number(m[1]), name: m[2]!, description: m[3]!.trim() });
    else if (rules.length) {
      const last = rules[rules.length - 1]!;
      last.description = `${last.description} ${line.trim()}`.trim();
    }
  }
  return rules;
}

/** Asks spamd at host:port for a report on one message. */
export function spamdReport(address: { host: string; port: number }, raw: Uint8Array, timeoutMs: number): Promise<SpamReport> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: address.host, port: address.port });
    const fail = (why: string) => {
      socket.destroy();
      reject(new SpamdError(why));
    };
    socket.setTimeout(timeoutMs, () => fail(`spamd at ${address.host}:${address.port} did not answer within ${timeoutMs} ms`));
    socket.on("error", (e) => fail(`spamd at ${address.host}:${address.port}: ${e.message}`));
    socket.on("data", (d: Buffer) => chunks.push(d));
    socket.on("end", () => {
      try {
        resolve(parseSpamdResponse(Buffer.concat(chunks).toString("utf8")));
      } catch (e) {
        reject(e);
      }
    });
    socket.on("connect", () => socket.end(spamcRequest(raw)));
  });
}
