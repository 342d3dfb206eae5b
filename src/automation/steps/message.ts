// message.wait (event-driven on the bus, with a slow poll as a safety net for mail stored by
// another worker) and message.extract. message.wait's `q` is the search language of the REST API
// (docs/search.md), judged by the same repository query as GET …/messages?q= and the long-poll.
import type { MessageRecord, SearchQuery } from "../../storage/mail";
import { parseSearchQuery, SearchSyntaxError } from "../../mail/search-query";
import { readLinks } from "../../mime/links";
import { DomainError } from "../../lib/errors";
import { CHECKS, type CheckName } from "../../mail/analyses";
import { StepError, type StepHandler } from "./types";

const POLL_MS = 2000;
const MAX_TEXT = 64 * 1024;

type MessageRow = Pick<
  MessageRecord,
  "id" | "project_id" | "subject" | "from_email" | "from_name" | "text_body" | "html_body" | "codes" | "links" | "received_at"
>;

/** SQLite's lower(): ASCII letters only, as addresses are stored. */
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

const ci = (hay: string | null | undefined, needle: string) => (hay ?? "").toLowerCase().includes(needle.toLowerCase());

export const messageWait: StepHandler = async (sc, p) => {
  const { storage } = sc.ctx;
  // By id, or by address (a persistent mailbox is easier to name by its address).
  const name = String(p.inbox);
  const byAddress = async () => {
    const a = await storage.inboxes.byAddress(asciiLower(name));
    return a && a.projectId === sc.project.id ? a : null;
  };
  const found = (await storage.inboxes.inProject(sc.project.id, name)) ?? (await byAddress());
  if (!found) throw new StepError("inbox_not_found", `message.wait: no inbox ${String(p.inbox)} in this project`);
  const inboxId = found.id;
  const timeoutMs = (p.timeout_seconds ?? 60) * 1000;
  const remaining = sc.startedAt + timeoutMs - Date.now();
  let query: SearchQuery | null = null;
  if (p.q !== undefined) {
    try {
      const parsed = parseSearchQuery(String(p.q));
      query = parsed.terms.length ? parsed : null;
    } catch (e) {
      if (!(e instanceof SearchSyntaxError)) throw e;
      throw new StepError("invalid_query", `message.wait: q is not a valid search: ${e.reason} at position ${e.position}`);
    }
  }
  /** The oldest message after `seen` (matching q when given). */
  const next = async (seen: string): Promise<MessageRow | null> => {
    if (!query) return storage.messages.oldestAfter(inboxId, seen);
    await storage.searchable();
    const [m] = await storage.messages.search({
      projectId: sc.project.id,
      inboxId,
      query,
      after: seen || null,
      order: "oldest",
      limit: 1,
    });
    return m ?? null;
  };
  let seen = "";
  const find = async (): Promise<MessageRow | null> => {
    for (;;) {
      const m = await next(seen);
      if (!m) return null;
      if (m.project_id === sc.project.id) {
        const hit =
          (p.subject === undefined || ci(m.subject, p.subject)) &&
          (p.from === undefined || ci(m.from_email, p.from)) &&
          (p.contains === undefined || ci(m.text_body, p.contains) || ci(m.html_body, p.contains));
        if (hit) return m;
      }
      seen = m.id;
    }
  };
  const m = await new Promise<MessageRow>((resolve, reject) => {
    const stop: (() => void)[] = [];
    let done = false;
    const finish = (fn: () => void) => {
      done = true;
      for (const s of stop) s();
      fn();
    };
    // One search at a time; a wake-up during a search searches once more after it.
    let busy = false;
    let again = false;
    const attempt = () => {
      if (done) return;
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      again = false;
      find().then(
        (hit) => {
          busy = false;
          if (done) return;
          if (hit) finish(() => resolve(hit));
          else if (again) attempt();
        },
        (e) => {
          busy = false;
          if (!done) finish(() => reject(e));
        },
      );
    };
    if (sc.signal.aborted) return reject(sc.signal.reason);
    const onAbort = () => finish(() => reject(sc.signal.reason));
    sc.signal.addEventListener("abort", onAbort, { once: true });
    stop.push(() => sc.signal.removeEventListener("abort", onAbort));
    stop.push(sc.ctx.bus.subscribe((e) => e.type === "message.received" && e.inboxId === inboxId && attempt()));
    const poll = setInterval(attempt, POLL_MS);
    stop.push(() => clearInterval(poll));
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(new StepError("message_wait_timeout", `message.wait: no matching message arrived within ${p.timeout_seconds ?? 60} s`)),
        ),
      Math.max(0, remaining),
    );
    stop.push(() => clearTimeout(timer));
    attempt();
  });
  return {
    id: m.id,
    subject: m.subject,
    from: m.from_email,
    from_name: m.from_name,
    text: (m.text_body ?? "").slice(0, MAX_TEXT),
    html: (m.html_body ?? "").slice(0, MAX_TEXT),
    codes: JSON.parse(m.codes),
    links: readLinks(m.links),
    received_at: m.received_at,
  };
};

export const messageExtract: StepHandler = async (sc, p) => {
  const id = String(p.message);
  const m = await sc.ctx.storage.messages.inProject(sc.project.id, id);
  if (!m) throw new StepError("message_not_found", `message.extract: no message ${id} in this project`);
  let value: string | undefined;
  // A pattern follows the REST `pattern` rules (mime/pattern.ts) and runs in the pattern worker with
  // its time limit: a runaway expression fails the step instead of holding the server.
  try {
    const pattern = p.pattern === undefined ? null : sc.deps.messages.patternOf(String(p.pattern));
    if (p.extract === "code") {
      // Over subject, text and HTML-derived text; the first group, else the whole match.
      value = pattern ? (await sc.deps.messages.codesMatching(m, pattern))[0] : (JSON.parse(m.codes) as string[])[0];
    } else {
      const links = readLinks(m.links).map((l) => l.url);
      value = links[0];
      if (pattern) {
        value = undefined;
        for (const url of links) {
          if (await sc.deps.messages.patternMatches(pattern, url)) {
            value = url;
            break;
          }
        }
      }
    }
  } catch (e) {
    if (e instanceof DomainError) throw new StepError("invalid_pattern", `message.extract: ${e.message}`);
    throw e;
  }
  if (value === undefined) {
    throw new StepError(
      "nothing_extracted",
      `message.extract: no ${p.extract}${p.pattern !== undefined ? ` matching /${p.pattern}/` : ""} in message ${id}`,
    );
  }
  return { value };
};

/** message.check: an analysis of the mail itself (docs/analysis.md), named by `check`. */
export const messageCheck: StepHandler = async (sc, p) => {
  const id = String(p.message);
  try {
    return { ...(await CHECKS[p.check as CheckName](sc.deps.analyses, sc.project.id, id)) };
  } catch (e) {
    if (e instanceof DomainError && e.code === "not_found")
      throw new StepError("message_not_found", `message.check: no message ${id} in this project`);
    if (e instanceof DomainError && e.code === "analysis_unavailable")
      throw new StepError("analysis_unavailable", `message.check: ${e.message}`);
    throw e;
  }
};
