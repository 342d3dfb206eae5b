// message.wait (event-driven on the bus, with a slow poll as a safety net for mail stored by
// another worker) and message.extract.
import { StepError, type StepHandler } from "./types";

const POLL_MS = 2000;
const MAX_TEXT = 64 * 1024;

interface MessageRow {
  id: string;
  subject: string;
  from_email: string;
  from_name: string;
  text_body: string | null;
  html_body: string | null;
  codes: string;
  links: string;
  received_at: string;
}

const ci = (hay: string | null | undefined, needle: string) => (hay ?? "").toLowerCase().includes(needle.toLowerCase());

export const messageWait: StepHandler = async (sc, p) => {
  const { sqlite } = sc.ctx.db;
  // By id, or by address (a persistent mailbox is easier to name by its address).
  const found = sqlite
    .query("SELECT id FROM inboxes WHERE (id = ? OR address = lower(?)) AND project_id = ?")
    .get(String(p.inbox), String(p.inbox), sc.project.id) as { id: string } | null;
  if (!found) throw new StepError("inbox_not_found", `message.wait: no inbox ${String(p.inbox)} in this project`);
  const inboxId = found.id;
  const timeoutMs = (p.timeout_seconds ?? 60) * 1000;
  const remaining = sc.startedAt + timeoutMs - Date.now();
  const q = sqlite.query(
    "SELECT id, subject, from_email, from_name, text_body, html_body, codes, links, received_at FROM messages WHERE inbox_id = ? AND project_id = ? AND id > ? ORDER BY id ASC LIMIT 200",
  );
  let seen = "";
  const find = (): MessageRow | null => {
    for (;;) {
      const rows = q.all(inboxId, sc.project.id, seen) as MessageRow[];
      if (rows.length === 0) return null;
      for (const m of rows) {
        if (p.subject !== undefined && !ci(m.subject, p.subject)) continue;
        if (p.from !== undefined && !ci(m.from_email, p.from)) continue;
        if (p.contains !== undefined && !ci(m.text_body, p.contains) && !ci(m.html_body, p.contains)) continue;
        return m;
      }
      seen = rows[rows.length - 1]!.id;
    }
  };
  const m = await new Promise<MessageRow>((resolve, reject) => {
    const stop: (() => void)[] = [];
    const finish = (fn: () => void) => {
      for (const s of stop) s();
      fn();
    };
    const attempt = () => {
      try {
        const hit = find();
        if (hit) finish(() => resolve(hit));
      } catch (e) {
        finish(() => reject(e));
      }
    };
    if (sc.signal.aborted) return reject(sc.signal.reason);
    const onAbort = () => finish(() => reject(sc.signal.reason));
    sc.signal.addEventListener("abort", onAbort, { once: true });
    stop.push(() => sc.signal.removeEventListener("abort", onAbort));
    stop.push(sc.ctx.bus.subscribe((e) => e.type === "message.received" && e.inboxId === inboxId && attempt()));
    const poll = setInterval(attempt, POLL_MS);
    stop.push(() => clearInterval(poll));
    const timer = setTimeout(
      () => finish(() => reject(new StepError("message_wait_timeout", `message.wait: no matching message arrived within ${p.timeout_seconds ?? 60} s`))),
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
    links: JSON.parse(m.links),
    received_at: m.received_at,
  };
};

export const messageExtract: StepHandler = async (sc, p) => {
  const id = String(p.message);
  const m = sc.ctx.db.sqlite
    .query("SELECT text_body, html_body, codes, links FROM messages WHERE id = ? AND project_id = ?")
    .get(id, sc.project.id) as Pick<MessageRow, "text_body" | "html_body" | "codes" | "links"> | null;
  if (!m) throw new StepError("message_not_found", `message.extract: no message ${id} in this project`);
  let value: string | undefined;
  if (p.extract === "code") {
    if (p.pattern !== undefined) {
      const text = m.text_body ?? (m.html_body ?? "").replace(/<[^>]+>/g, " ");
      const hit = new RegExp(p.pattern).exec(text);
      value = hit ? (hit[1] ?? hit[0]) : undefined;
    } else value = (JSON.parse(m.codes) as string[])[0];
  } else {
    const links = JSON.parse(m.links) as string[];
    value = p.pattern !== undefined ? links.find((l) => new RegExp(p.pattern).test(l)) : links[0];
  }
  if (value === undefined) {
    throw new StepError("nothing_extracted", `message.extract: no ${p.extract}${p.pattern !== undefined ? ` matching /${p.pattern}/` : ""} in message ${id}`);
  }
  return { value };
};
