// Fault injection at connect (docs/chaos.md "Connection faults"): rules of the instance's SMTP and
// LMTP listeners that make a new connection's greeting late, or refuse the connection with 421
// (closed at once, a sender retries) or 554 (no service until QUIT, RFC 5321 §3.1). Nothing names a
// project before the first RCPT, so these rules are the instance's, changed by its operator only
// (tenancy/operator.ts). This file owns the rules, their wording and the decision; the listener
// asks `atConnect()` for every connection and acts on the answer (protocols/smtp/session.ts).
//
// Connect→220 is a measured goal, so the answer comes from memory: the rules are read when the
// listeners start and again on `smtp.chaos` (published after every change, carried to the other
// nodes by the cluster bus). With no rules it is one check, no query, no await. On PostgreSQL,
// where a signal to another node can be lost, a connection that finds the copy older than
// STALE_MS also starts a read in the background (it is answered from the copy it found).
import type { AppContext } from "../runtime/context";
import type { SmtpChaosRuleRecord } from "../storage/mail";
import type { Principal } from "../tenancy/auth";
import type { InstanceOperators } from "../tenancy/operator";
import { nowIso } from "../lib/time";
import { log } from "../lib/log";
import { validation } from "../lib/errors";
import { ruleDelay, ruleMessage, ruleRate, ruleView, validateRuleList, withEnhanced } from "./chaos";

export const SMTP_CHAOS_CODES = [421, 554] as const;
export type SmtpChaosCode = (typeof SMTP_CHAOS_CODES)[number];

/** Longest a node answers from its copy without reading the rules again (PostgreSQL only: covers a lost signal). */
const STALE_MS = 5_000;
const WHAT = "the SMTP listeners' connection faults";

/** A rule as the API shows it; `reply` is the line a client sees when it fires (for a slow greeting, the greeting). */
export interface SmtpChaosRuleView {
  stage: "connect";
  code: SmtpChaosCode | null;
  message: string | null;
  rate: number;
  delay_ms: number;
  reply: string;
}

/** What a new connection gets when a rule fires, after delayMs: the usual greeting (code null) or `${code} ${text}`. */
export interface ConnectFault {
  code: SmtpChaosCode | null;
  text: string;
  delayMs: number;
}

/** The greeting line of a listener (without CRLF): the one place it is worded. */
export function smtpGreeting(host: string, lmtp = false): string {
  return `220 ${host} ${lmtp ? "LMTP" : "ESMTP"} inboxd test mail sink`;
}

export class SmtpChaosService {
  /** The rules every new connection is judged by; replaced whole, never changed in place. */
  private rules: SmtpChaosRuleRecord[] = [];
  /** Bumped by every read started and every local change: only the newest read's answer is kept. */
  private generation = 0;
  private loaded: Promise<void> | null = null;
  private readonly shared: boolean;
  private staleAt = Number.POSITIVE_INFINITY;

  constructor(
    private readonly ctx: AppContext,
    private readonly operators: InstanceOperators,
    /** A number in [0, 1); a rule fires when it is below the rule's rate (tests pass their own). */
    private readonly random: () => number = Math.random,
  ) {
    this.shared = ctx.storage.signals !== undefined;
    ctx.bus.subscribe((e) => {
      if (e.type === "smtp.chaos") void this.reload();
    });
  }

  /** Reads the rules once; the listeners await it before they accept connections. */
  ready(): Promise<void> {
    this.loaded ??= this.reload();
    return this.loaded;
  }

  async get(p: Principal): Promise<{ rules: SmtpChaosRuleView[] }> {
    await this.operators.require(p, WHAT);
    return this.view(await this.ctx.storage.smtpChaos.list());
  }

  /** Replaces the rules; an empty list is the same as none. Applies to this node's next connection at once. */
  async put(p: Principal, input: { rules?: unknown }): Promise<{ rules: SmtpChaosRuleView[] }> {
    await this.operators.require(p, WHAT);
    const rules = validateSmtpChaosRules(input.rules);
    const createdAt = nowIso();
    await this.ctx.storage.transaction((tx) => tx.smtpChaos.replace(rules, createdAt));
    this.changed(rules);
    return this.view(rules);
  }

  async clear(p: Principal): Promise<void> {
    await this.operators.require(p, WHAT);
    await this.ctx.storage.smtpChaos.clear();
    this.changed([]);
  }

  /** The fault for a connection just accepted, or null for the usual greeting at once. */
  atConnect(): ConnectFault | null {
    if (this.shared && Date.now() >= this.staleAt) {
      this.staleAt = Date.now() + STALE_MS;
      void this.reload();
    }
    const rules = this.rules;
    if (rules.length === 0) return null;
    for (const rule of rules) {
      if (rule.rate >= 1 || this.random() < rule.rate) {
        return { code: rule.code, text: rule.code === null ? "" : this.refusalText(rule), delayMs: rule.delayMs };
      }
    }
    return null;
  }

  private changed(rules: SmtpChaosRuleRecord[]): void {
    this.generation++;
    this.use(rules);
    this.ctx.bus.publish({ type: "smtp.chaos" });
  }

  private use(rules: SmtpChaosRuleRecord[]): void {
    this.rules = rules;
    if (this.shared) this.staleAt = Date.now() + STALE_MS;
  }

  private async reload(): Promise<void> {
    const generation = ++this.generation;
    try {
      const rules = await this.ctx.storage.smtpChaos.list();
      if (generation === this.generation) this.use(rules);
    } catch (err) {
      // The greeting never waits on this: the copy in memory stays until a read succeeds.
      log.warn({ err }, "could not read the SMTP connection-fault rules");
    }
  }

  private refusalText(rule: SmtpChaosRuleRecord): string {
    const host = this.ctx.config.publicHost;
    return rule.code === 421
      ? withEnhanced(rule.message, "4.3.2", `${host} service not available (inboxd chaos fault injection), try again later`)
      : withEnhanced(rule.message, "5.3.2", `${host} no SMTP service here (inboxd chaos fault injection); send QUIT`);
  }

  private view(rules: SmtpChaosRuleRecord[]): { rules: SmtpChaosRuleView[] } {
    return {
      rules: rules.map((r) => ruleView(r, r.code === null ? smtpGreeting(this.ctx.config.publicHost) : `${r.code} ${this.refusalText(r)}`)),
    };
  }
}

/** Checks a rules list against the limits (docs/chaos.md "Connection faults"); the records to store, in order. */
export function validateSmtpChaosRules(input: unknown): SmtpChaosRuleRecord[] {
  return validateRuleList(input, "for the SMTP listeners", (r, at) => {
    if (r.stage !== "connect") throw validation(`${at}.stage must be "connect"`, { field: `${at}.stage`, allowed: ["connect"] });
    const code = r.code ?? null;
    if (code !== null && !(SMTP_CHAOS_CODES as readonly unknown[]).includes(code)) {
      throw validation(`${at}.code must be 421 (closed, the sender retries), 554 (no service until QUIT) or null (a slow greeting)`, {
        field: `${at}.code`,
        allowed: [...SMTP_CHAOS_CODES, null],
      });
    }
    const rate = ruleRate(r, at);
    const delayMs = ruleDelay(r, at);
    if (code === null) {
      if (delayMs === 0) {
        throw validation(`${at} would do nothing: a rule without a code delays the greeting, so delay_ms must be above 0`, {
          field: `${at}.delay_ms`,
        });
      }
      if (r.message !== undefined && r.message !== null) {
        throw validation(`${at}.message needs a code: a slow greeting sends the usual greeting`, { field: `${at}.message` });
      }
    }
    const message = code === null ? null : ruleMessage(r, at, code as SmtpChaosCode);
    return { stage: "connect" as const, code: code as SmtpChaosCode | null, message, rate, delayMs };
  });
}
