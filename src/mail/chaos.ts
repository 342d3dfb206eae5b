// Fault injection per inbox (docs/chaos.md): rules that make mail to an inbox get an SMTP failure
// reply at RCPT or at the end of DATA, with a probability and an optional delay, so that an
// application's retry and bounce handling can be tested. This file owns the rules (validation,
// limits, the reply's wording) and the decision; the SMTP listener only asks and answers.
//
// Decisions (docs/chaos.md): rules of one stage are tried in order, each drawing its own chance,
// and the first that fires wins; a rule's delay applies only when it fires (the failure reply is
// late, a passing recipient is not slowed down). At RCPT only the recipients whose inbox has a
// firing rule are refused. At DATA the message is one transaction: if any recipient's inbox has a
// data rule that fires, the whole DATA gets that reply and nothing is stored for anyone.
import type { AppContext } from "../runtime/context";
import type { ChaosRuleRecord } from "../storage/mail";
import { nowIso } from "../lib/time";
import { validation } from "../lib/errors";
import type { InboxRow } from "./inboxes";
import { InboxLookupCache, inboxLookupChanged } from "./inbox-lookups";

export const CHAOS_MAX_RULES = 10;
export const CHAOS_MAX_DELAY_MS = 30_000;
export const CHAOS_MAX_MESSAGE = 200;
export const CHAOS_STAGES = ["rcpt", "data"] as const;
export type ChaosStage = (typeof CHAOS_STAGES)[number];

/** A rule as a client sends it (PUT body). */
export interface ChaosRuleInput {
  stage: string;
  code: number;
  message?: string | null;
  rate?: number;
  delay_ms?: number;
}

/** A rule as the API shows it; `reply` is the line a sender sees when it fires. */
export interface ChaosRuleView {
  stage: ChaosStage;
  code: number;
  message: string | null;
  rate: number;
  delay_ms: number;
  reply: string;
}

export interface ChaosView {
  inbox_id: string;
  rules: ChaosRuleView[];
}

/** What the SMTP listener answers when a rule fires: `${code} ${text}`, after delayMs. */
export interface ChaosReply {
  stage: ChaosStage;
  code: number;
  /** Enhanced status code and text, e.g. "5.7.1 mailbox disabled". */
  text: string;
  delayMs: number;
  /** The inbox whose rule fired. */
  inboxId: string;
}

/** What chaos needs of the inbox service: the project's inbox or not_found. */
export interface InboxLookup {
  get(projectId: string, id: string): Promise<InboxRow>;
}

const ENHANCED = /^(\d)\.\d{1,3}\.\d{1,3}(?=\s|$)/;
const PRINTABLE = /^[\x20-\x7e]*$/;

export class ChaosService {
  /** Rules per inbox, read at every RCPT: kept in memory, dropped on change (inbox-lookups.ts). */
  private readonly rules: InboxLookupCache<ChaosRuleRecord[]>;

  constructor(
    private readonly ctx: AppContext,
    private readonly inboxes: InboxLookup,
    /** A number in [0, 1); a rule fires when it is below the rule's rate (tests pass their own). */
    private readonly random: () => number = Math.random,
  ) {
    this.rules = new InboxLookupCache("chaos", ctx.bus, (id) => ctx.storage.inboxChaos.ofInbox(id));
  }

  async get(projectId: string, inboxId: string): Promise<ChaosView> {
    const inbox = await this.inboxes.get(projectId, inboxId);
    return view(inbox, await this.ctx.storage.inboxChaos.ofInbox(inbox.id));
  }

  /** Replaces the inbox's rules; an empty list is the same as no fault injection. */
  async put(projectId: string, inboxId: string, input: { rules?: unknown }): Promise<ChaosView> {
    const rules = validateRules(input.rules);
    const inbox = await this.inboxes.get(projectId, inboxId);
    const createdAt = nowIso();
    await this.ctx.storage.transaction((tx) => tx.inboxChaos.replace(inbox.id, rules, createdAt));
    inboxLookupChanged(this.ctx.bus, "chaos", inbox.id);
    return view(inbox, rules);
  }

  async clear(projectId: string, inboxId: string): Promise<void> {
    const inbox = await this.inboxes.get(projectId, inboxId);
    await this.ctx.storage.inboxChaos.clear(inbox.id);
    inboxLookupChanged(this.ctx.bus, "chaos", inbox.id);
  }

  /** The inbox's rules, read once at RCPT and judged again at the end of DATA (atRcpt, atData). */
  rulesOf(inbox: InboxRow): ChaosRuleRecord[] | Promise<ChaosRuleRecord[]> {
    return this.rules.get(inbox.id);
  }

  /** The reply for RCPT TO this inbox (given its rules), or null to go on as usual. */
  atRcpt(inbox: InboxRow, rules: ChaosRuleRecord[]): ChaosReply | null {
    return rules.length === 0 ? null : this.decide(inbox, rules, "rcpt");
  }

  /**
   * The reply for the end of DATA of a message to these inboxes (in envelope order, with the
   * rules read at their RCPT), or null to store it.
   */
  atData(recipients: Array<{ inbox: InboxRow; rules: ChaosRuleRecord[] }>): ChaosReply | null {
    for (const { inbox, rules } of recipients) {
      const reply = rules.length ? this.decide(inbox, rules, "data") : null;
      if (reply) return reply;
    }
    return null;
  }

  private decide(inbox: InboxRow, rules: ChaosRuleRecord[], stage: ChaosStage): ChaosReply | null {
    for (const rule of rules) {
      if (rule.stage !== stage) continue;
      if (rule.rate >= 1 || this.random() < rule.rate) {
        return { stage, code: rule.code, text: replyText(rule, inbox.address), delayMs: rule.delayMs, inboxId: inbox.id };
      }
    }
    return null;
  }
}

/** The text after the code: the rule's message (with an enhanced status code put in front unless it has one) or ours. */
export function replyText(rule: Pick<ChaosRuleRecord, "stage" | "code" | "message">, address: string): string {
  const temporary = rule.code < 500;
  const what = temporary ? "temporary failure injected by inboxd chaos" : "rejected by inboxd chaos (fault injection)";
  return withEnhanced(
    rule.message,
    temporary ? "4.3.0" : "5.7.1",
    rule.stage === "rcpt" ? `<${address}>: ${what}` : `message ${what} for <${address}>`,
  );
}

/** A reply's text: `message` as given when it starts with an enhanced status code, else `enhanced` in front of it (or of `fallback`). */
export function withEnhanced(message: string | null, enhanced: string, fallback: string): string {
  if (message === null) return `${enhanced} ${fallback}`;
  return ENHANCED.test(message) ? message : `${enhanced} ${message}`;
}

function view(inbox: InboxRow, rules: ChaosRuleRecord[]): ChaosView {
  return { inbox_id: inbox.id, rules: rules.map((r) => ruleView(r, `${r.code} ${replyText(r, inbox.address)}`)) };
}

/** A stored rule as the API shows it (per inbox and at connect alike), with the line a sender sees when it fires. */
export function ruleView<R extends { stage: string; code: number | null; message: string | null; rate: number; delayMs: number }>(
  r: R,
  reply: string,
): { stage: R["stage"]; code: R["code"]; message: string | null; rate: number; delay_ms: number; reply: string } {
  return { stage: r.stage, code: r.code, message: r.message, rate: r.rate, delay_ms: r.delayMs, reply };
}

/** Checks a rules list against the limits (docs/chaos.md); the records to store, in order. */
export function validateRules(input: unknown): ChaosRuleRecord[] {
  return validateRuleList(input, "per inbox", (r, at) => {
    if (typeof r.stage !== "string" || !(CHAOS_STAGES as readonly string[]).includes(r.stage)) {
      throw validation(`${at}.stage must be "rcpt" or "data"`, { field: `${at}.stage`, allowed: CHAOS_STAGES });
    }
    const stage = r.stage as ChaosStage;
    if (!Number.isInteger(r.code) || (r.code as number) < 400 || (r.code as number) > 599) {
      throw validation(`${at}.code must be an integer 400..599 (4xx: temporary, the sender retries; 5xx: permanent)`, {
        field: `${at}.code`,
      });
    }
    const code = r.code as number;
    const rate = ruleRate(r, at);
    const delayMs = ruleDelay(r, at);
    return { stage, code, message: ruleMessage(r, at, code), rate, delayMs };
  });
}

// The checks every kind of chaos rule shares (per inbox here, at connect in smtp-chaos.ts).

/** An array of at most CHAOS_MAX_RULES objects, each checked by `rule` (given its place, `rules[2]`). */
export function validateRuleList<T>(input: unknown, per: string, rule: (raw: Record<string, unknown>, at: string) => T): T[] {
  if (!Array.isArray(input)) throw validation("rules must be an array (empty: no fault injection)", { field: "rules" });
  if (input.length > CHAOS_MAX_RULES) {
    throw validation(`at most ${CHAOS_MAX_RULES} rules ${per}`, { field: "rules", max: CHAOS_MAX_RULES });
  }
  return input.map((raw, i) => {
    const at = `rules[${i}]`;
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw validation(`${at} must be an object`, { field: at });
    return rule(raw as Record<string, unknown>, at);
  });
}

/** `rate`: 0..1, default 1. */
export function ruleRate(r: Record<string, unknown>, at: string): number {
  const rate = r.rate ?? 1;
  if (typeof rate !== "number" || !Number.isFinite(rate) || rate < 0 || rate > 1) {
    throw validation(`${at}.rate must be a number 0..1`, { field: `${at}.rate` });
  }
  return rate;
}

/** `delay_ms`: an integer 0..CHAOS_MAX_DELAY_MS, default 0. */
export function ruleDelay(r: Record<string, unknown>, at: string): number {
  const delayMs = r.delay_ms ?? 0;
  if (!Number.isInteger(delayMs) || (delayMs as number) < 0 || (delayMs as number) > CHAOS_MAX_DELAY_MS) {
    throw validation(`${at}.delay_ms must be an integer 0..${CHAOS_MAX_DELAY_MS}`, { field: `${at}.delay_ms`, max: CHAOS_MAX_DELAY_MS });
  }
  return delayMs as number;
}

/** `message`: absent or null (the default text), else one line of printable ASCII whose enhanced status code, if any, is of the code's class. */
export function ruleMessage(r: Record<string, unknown>, at: string, code: number): string | null {
  if (r.message === undefined || r.message === null) return null;
  if (typeof r.message !== "string") throw validation(`${at}.message must be a string`, { field: `${at}.message` });
  const message = r.message.trim();
  if (message.length === 0 || message.length > CHAOS_MAX_MESSAGE) {
    throw validation(`${at}.message must be 1..${CHAOS_MAX_MESSAGE} characters (omit it for the default text)`, {
      field: `${at}.message`,
      max: CHAOS_MAX_MESSAGE,
    });
  }
  if (!PRINTABLE.test(message)) {
    throw validation(`${at}.message must be printable ASCII on one line (it is sent as an SMTP reply)`, { field: `${at}.message` });
  }
  const enhanced = ENHANCED.exec(message);
  if (enhanced && enhanced[1] !== String(code)[0]) {
    throw validation(`${at}.message starts with an enhanced status code whose class does not match code ${code}`, {
      field: `${at}.message`,
    });
  }
  return message;
}
