// Fault-injection dialogs (docs/chaos.md): an inbox's rules (GET/PUT/DELETE /v1/inboxes/{id}/chaos)
// and the SMTP listeners' connection faults (smtp-chaos.ts, /v1/smtp/chaos). Both are one editor:
// the current rules, add and remove rows, save (PUT replaces them) or clear them all (DELETE).
import { api, describe } from "../api";
import { dialog, h, icon, iconButton, replace, toast } from "../dom";

export interface ChaosRule {
  stage: "rcpt" | "data";
  code: number;
  message: string | null;
  rate: number;
  delay_ms: number;
  reply?: string;
}

const MAX_RULES = 10;

/** The inbox's rules, or null when they cannot be read (no scope, an older server). */
export async function loadChaos(inboxId: string): Promise<ChaosRule[] | null> {
  try {
    return (await api<{ data: { rules: ChaosRule[] } }>(`/v1/inboxes/${inboxId}/chaos`)).data.rules;
  } catch {
    return null;
  }
}

export interface RuleRow<T> {
  el: HTMLElement;
  read(): T;
}

// The fields every kind of rule has.
export const rateInput = (rate: number) =>
  h("input", { name: "rate", type: "number", min: 0, max: 1, step: "any", required: true, value: String(rate) });
export const delayInput = (delay: number, min = 0) =>
  h("input", { name: "delay_ms", type: "number", min, max: 30000, step: 1, required: true, value: String(delay) });
export const messageInput = (message: string | null) =>
  h("input", {
    name: "message",
    maxLength: 200,
    pattern: "[\\x20-\\x7E]*",
    placeholder: "default: names inboxd chaos",
    value: message ?? "",
  });
export const removeButton = (onclick: () => void) =>
  iconButton("Remove this rule", "trash", onclick, { small: true, danger: true, test: "chaos-remove" });

function ruleRow(rule: ChaosRule, onRemove: () => void): RuleRow<ChaosRule> {
  const stage = h(
    "select",
    { name: "stage", "aria-label": "Stage" },
    h("option", { value: "rcpt", selected: rule.stage === "rcpt" }, "RCPT (refuse this recipient)"),
    h("option", { value: "data", selected: rule.stage === "data" }, "DATA (refuse the message)"),
  );
  const code = h("input", { name: "code", type: "number", min: 400, max: 599, step: 1, required: true, value: String(rule.code) });
  const rate = rateInput(rule.rate);
  const delay = delayInput(rule.delay_ms);
  const message = messageInput(rule.message);
  const kind = h("span.chip", null);
  const setKind = () => {
    const n = Number(code.value);
    kind.textContent = n >= 400 && n < 500 ? "temporary: the sender retries" : n >= 500 && n < 600 ? "permanent: the sender bounces" : "";
    kind.className = `chip ${n >= 500 ? "bad" : "warn"}`;
  };
  code.addEventListener("input", setKind);
  setKind();
  return {
    el: h(
      "div.chaos-rule",
      { dataset: { test: "chaos-rule" } },
      h(
        "div.chaos-fields",
        null,
        h("label", null, "Stage", stage),
        h("label", null, "Code", code),
        h("label", null, "Rate (0..1)", rate),
        h("label", null, "Delay (ms)", delay),
        removeButton(onRemove),
      ),
      h("label", null, "Message (optional)", message),
      kind,
    ),
    read: () => ({
      stage: stage.value as ChaosRule["stage"],
      code: Number(code.value),
      message: message.value.trim() || null,
      rate: Number(rate.value),
      delay_ms: Number(delay.value),
    }),
  };
}

/** What differs between the editors: where the rules live, how a row looks, the words. */
export interface RulesEditor<T> {
  path: string;
  title: string;
  intro: string;
  /** Shown when there are no rules. */
  none: string;
  /** The toast after Clear all. */
  cleared: string;
  /** What the rules are called in the toast after saving ("Fault injection", "Connection faults"). */
  noun: string;
  blank: () => T;
  row: (rule: T, onRemove: () => void) => RuleRow<T>;
}

/** Opens the editor; resolves with the rules as they are afterwards (null: unchanged or failed). */
export async function rulesDialog<T>(e: RulesEditor<T>): Promise<T[] | null> {
  let current: T[];
  try {
    current = (await api<{ data: { rules: T[] } }>(e.path)).data.rules;
  } catch (err) {
    toast(`Could not load the fault-injection rules: ${describe(err)}`, "error");
    return null;
  }
  const rows: RuleRow<T>[] = [];
  const list = h("div.chaos-rules", { dataset: { test: "chaos-rules" } });
  const add = h(
    "button.btn",
    { type: "button", onclick: () => addRow(e.blank()), dataset: { test: "chaos-add" } },
    icon("plus", 14),
    "Add rule",
  );
  const render = () => {
    replace(list, rows.length ? rows.map((r) => r.el) : h("p.muted.small", { dataset: { test: "chaos-empty" } }, e.none));
    add.disabled = rows.length >= MAX_RULES;
  };
  const addRow = (rule: T) => {
    const row = e.row(rule, () => {
      rows.splice(rows.indexOf(row), 1);
      render();
    });
    rows.push(row);
    render();
  };
  for (const r of current) addRow(r);
  render();

  let cleared = false;
  const clearAll = h(
    "button.btn.danger",
    {
      type: "button",
      disabled: current.length === 0,
      dataset: { test: "chaos-clear" },
      onclick: async (ev: Event) => {
        const btn = ev.currentTarget as HTMLButtonElement;
        btn.disabled = true;
        try {
          await api(e.path, { method: "DELETE" });
          cleared = true;
          toast(e.cleared, "ok");
          btn.closest("dialog")?.close("cancel");
        } catch (err) {
          btn.disabled = false;
          // Disabled, it had lost the focus to <body>.
          btn.focus();
          toast(`Could not clear: ${describe(err)}`, "error");
        }
      },
    },
    "Clear all",
  );

  const rules = await dialog<T[]>(
    e.title,
    h("div.form-grid", null, h("p.muted", null, e.intro), list, h("div.chaos-tools", null, add, h("span.spacer"), clearAll)),
    { submit: "Save rules", collect: () => rows.map((r) => r.read()) },
  );
  if (cleared) return [];
  if (rules === null) return null;
  try {
    const saved = (await api<{ data: { rules: T[] } }>(e.path, { method: "PUT", json: { rules } })).data.rules;
    toast(saved.length ? `${e.noun} on: ${saved.length} rule${saved.length === 1 ? "" : "s"}` : `${e.noun} off`, "ok");
    return saved;
  } catch (err) {
    toast(`Could not save the rules: ${describe(err)}`, "error");
    return null;
  }
}

/** An inbox's "Fault injection" dialog. */
export function chaosDialog(inbox: { id: string; address: string }): Promise<ChaosRule[] | null> {
  return rulesDialog<ChaosRule>({
    path: `/v1/inboxes/${inbox.id}/chaos`,
    title: "Fault injection",
    intro: `Make mail to ${inbox.address} fail on purpose. Per stage, rules are tried in order; the first that fires (with its rate) answers with its code after its delay, and the mail is not stored. A DATA rule refuses the whole message, for every recipient.`,
    none: "No rules: mail to this inbox is accepted as usual.",
    cleared: "Fault injection cleared: mail is accepted as usual",
    noun: "Fault injection",
    blank: () => ({ stage: "rcpt", code: 550, message: null, rate: 1, delay_ms: 0 }),
    row: ruleRow,
  });
}
