// The "Connection faults" dialog (GET/PUT/DELETE /v1/smtp/chaos, docs/chaos.md "Connection faults"):
// the SMTP listeners' connect rules, instance-wide. Only the instance's operator may read or change
// them, so the button that opens it is shown only when the read succeeds (loadSmtpChaos).
import { api } from "../api";
import { h } from "../dom";
import { delayInput, messageInput, rateInput, removeButton, type RuleRow, rulesDialog } from "./chaos";

export interface SmtpChaosRule {
  stage: "connect";
  code: 421 | 554 | null;
  message: string | null;
  rate: number;
  delay_ms: number;
  reply?: string;
}

const PATH = "/v1/smtp/chaos";

/** The rules, or null when this user may not see them (403: not the instance's operator) or the server has none. */
export async function loadSmtpChaos(): Promise<SmtpChaosRule[] | null> {
  try {
    return (await api<{ data: { rules: SmtpChaosRule[] } }>(PATH)).data.rules;
  } catch {
    return null;
  }
}

function connectRow(rule: SmtpChaosRule, onRemove: () => void): RuleRow<SmtpChaosRule> {
  const code = h(
    "select",
    { name: "code", "aria-label": "Answer" },
    h("option", { value: "", selected: rule.code === null }, "220, late (slow greeting)"),
    h("option", { value: "421", selected: rule.code === 421 }, "421: closed, retry later"),
    h("option", { value: "554", selected: rule.code === 554 }, "554: no service"),
  );
  const rate = rateInput(rule.rate);
  const delay = delayInput(rule.delay_ms);
  const message = messageInput(rule.message);
  const messageLabel = h("label", null, "Message (optional)", message);
  // A slow greeting sends the usual 220: it needs a delay and has no text of its own.
  const sync = () => {
    const slow = code.value === "";
    delay.min = slow ? "1" : "0";
    messageLabel.classList.toggle("hidden", slow);
    if (slow) message.value = "";
  };
  code.addEventListener("change", sync);
  sync();
  return {
    el: h(
      "div.chaos-rule",
      { dataset: { test: "chaos-rule" } },
      h(
        "div.chaos-fields",
        null,
        h("label", null, "Answer", code),
        h("label", null, "Rate (0..1)", rate),
        h("label", null, "Delay (ms)", delay),
        h("span"),
        removeButton(onRemove),
      ),
      messageLabel,
    ),
    read: () => ({
      stage: "connect",
      code: code.value === "" ? null : (Number(code.value) as 421 | 554),
      message: message.value.trim() || null,
      rate: Number(rate.value),
      delay_ms: Number(delay.value),
    }),
  };
}

/** Opens the dialog; resolves with the rules as they are afterwards (null: unchanged or failed). */
export function smtpChaosDialog(): Promise<SmtpChaosRule[] | null> {
  return rulesDialog<SmtpChaosRule>({
    path: PATH,
    title: "Connection faults",
    intro:
      "Make new SMTP and LMTP connections to this instance slow or refused, for every project. Rules are tried in order; the first that fires (with its rate) answers after its delay: the usual 220 greeting, a 421 that closes the connection, or a 554 after which only QUIT is served.",
    none: "No rules: every connection is greeted at once.",
    cleared: "Connection faults cleared: every connection is greeted at once",
    noun: "Connection faults",
    blank: () => ({ stage: "connect", code: null, message: null, rate: 1, delay_ms: 2000 }),
    row: connectRow,
  });
}
