// Tiny DOM helpers: element construction, formatting, clipboard, toasts, dialogs.

type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, unknown> & { class?: string; style?: string; dataset?: Record<string, string> };

/** h("button.primary", {onclick}, "Save"): tag with optional .classes, attributes/properties, children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  spec: K | `${K}.${string}`,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const [tag, ...classes] = spec.split(".");
  const el = document.createElement(tag as K);
  if (classes.length) el.className = classes.join(" ");
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") el.className = [el.className, String(v)].filter(Boolean).join(" ");
      else if (k === "dataset") Object.assign(el.dataset, v);
      else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v as EventListener);
      else if (k in el && k !== "style" && k !== "list" && k !== "form") (el as any)[k] = v;
      else el.setAttribute(k, v === true ? "" : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el: Node, children: Child[]) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
  }
}

export function replace(el: Element, ...children: Child[]) {
  el.textContent = "";
  append(el, children);
}

const ICONS: Record<string, string> = {
  inbox: "M3 13h5l2 3h4l2-3h5M5.5 5h13L21 13v6a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1v-6z",
  bell: "M6 16V11a6 6 0 1 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0",
  copy: "M8 8h11v12H8zM5 16V4h11",
  trash: "M4 7h16M9 7V4h6v3M6 7l1 13h10l1-13",
  eye: "M2 12s4-7 10-7 10 7 10 7-4 7-10 7S2 12 2 12zM12 9a3 3 0 1 0 0 6 3 3 0 0 0 0-6z",
  eyeOff: "M3 3l18 18M10.6 6.1A10 10 0 0 1 12 6c6 0 10 6 10 6a17 17 0 0 1-3 3.6M6.6 6.6C3.8 8.4 2 12 2 12s4 7 10 7a9.6 9.6 0 0 0 4.4-1",
  plus: "M12 5v14M5 12h14",
  back: "M15 5l-7 7 7 7",
  download: "M12 4v11M7 10l5 5 5-5M5 20h14",
  upload: "M12 20V9M7 14l5-5 5 5M5 4h14",
  clip: "M16 7l-7.5 7.5a2 2 0 0 0 2.8 2.8L19 9.6a4 4 0 0 0-5.7-5.7L5.6 11.6a6 6 0 0 0 8.5 8.5L20 14",
  check: "M5 12l5 5 9-10",
  x: "M6 6l12 12M18 6L6 18",
  key: "M14 10a4 4 0 1 0-3.5 4L12 16h2v2h2v2h4v-3.5l-6.1-6.1",
  play: "M7 5l12 7-12 7z",
  shield: "M12 3l8 3v6c0 4.5-3.4 8.3-8 9-4.6-.7-8-4.5-8-9V6z M9 12l2 2 4-4",
  logout: "M15 4h4v16h-4M10 8l-4 4 4 4M6 12h11",
  mail: "M3 6h18v12H3zM3 7l9 7 9-7",
  mailOpen: "M3 10l9-6 9 6v10H3zM3 10l9 6 9-6",
  search: "M11 4a7 7 0 1 0 0 14 7 7 0 0 0 0-14zM20 20l-4-4",
  refresh: "M20 11a8 8 0 1 0-2.3 5.7M20 4v7h-7",
  link: "M10 14a5 5 0 0 0 7 0l3-3a5 5 0 0 0-7-7l-1 1M14 10a5 5 0 0 0-7 0l-3 3a5 5 0 0 0 7 7l1-1",
  clock: "M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zM12 7v5l3 2",
  pause: "M8 5v14M16 5v14",
  send: "M21 3L10 14M21 3l-7 18-4-7-7-4z",
  zap: "M13 2L4 14h7l-1 8 9-12h-7z",
  plug: "M9 3v5M15 3v5M6 8h12v3a6 6 0 0 1-12 0zM12 17v4",
  webhook: "M9 8a3 3 0 1 1 4.5 2.6L16 15M6.5 13.5a3 3 0 1 0 2.5 4.5h6M18 15a3 3 0 1 1-2.8 4",
};

export function icon(name: keyof typeof ICONS | string, size = 16): SVGSVGElement {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", String(size));
  svg.setAttribute("height", String(size));
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "icon");
  const p = document.createElementNS(ns, "path");
  p.setAttribute("d", ICONS[name] ?? "");
  svg.appendChild(p);
  return svg;
}

export function fmtBytes(n: number | undefined | null): string {
  if (n === undefined || n === null || !Number.isFinite(n)) return "–";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 && i > 0 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

export function relTime(ts: string | null | undefined): string {
  if (!ts) return "–";
  const d = new Date(ts).getTime();
  const s = Math.round((Date.now() - d) / 1000);
  if (Math.abs(s) < 45) return "just now";
  const fut = s < 0;
  const a = Math.abs(s);
  const [v, u] = a < 3600 ? [Math.round(a / 60), "min"] : a < 86400 ? [Math.round(a / 3600), "h"] : [Math.round(a / 86400), "d"];
  return fut ? `in ${v} ${u}` : `${v} ${u} ago`;
}

/** "23m 10s", "4h 02m", "3d 4h" until ts; "expired" once past. */
export function countdown(ts: string | null | undefined): string {
  if (!ts) return "";
  let s = Math.floor((new Date(ts).getTime() - Date.now()) / 1000);
  if (s <= 0) return "expired";
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const hr = Math.floor(s / 3600);
  s -= hr * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (d > 0) return `${d}d ${hr}h`;
  if (hr > 0) return `${hr}h ${String(m).padStart(2, "0")}m`;
  return `${m}m ${String(s).padStart(2, "0")}s`;
}

export function fullTime(ts: string | null | undefined): string {
  if (!ts) return "–";
  const d = new Date(ts);
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

export function shortTime(ts: string | null | undefined): string {
  if (!ts) return "";
  const d = new Date(ts);
  const today = new Date();
  if (d.toDateString() === today.toDateString()) return d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  return d.toLocaleDateString(undefined, { month: "short", day: "numeric" });
}

/** Copies text; navigator.clipboard needs a secure context, so plain-http LAN use falls back to execCommand. */
export async function copyText(text: string, what = "Copied"): Promise<void> {
  let ok = false;
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      ok = true;
    }
  } catch {}
  if (!ok) {
    const ta = h("textarea", { value: text, style: "position:fixed;opacity:0;top:0;left:0" });
    document.body.appendChild(ta);
    ta.select();
    try {
      ok = document.execCommand("copy");
    } catch {}
    ta.remove();
  }
  (window as any).__lastCopied = text;
  toast(
    ok ? `${what}: ${text.length > 48 ? text.slice(0, 45) + "…" : text}` : "Copy failed; select the text and copy it by hand",
    ok ? "ok" : "error",
  );
}

let toastBox: HTMLElement | null = null;
export function toast(message: string, kind: "ok" | "error" | "info" = "info") {
  if (!toastBox?.isConnected) {
    toastBox = h("div.toasts", { role: "status", "aria-live": "polite" });
    document.body.appendChild(toastBox);
  }
  const t = h("div.toast", { class: kind }, message);
  toastBox.appendChild(t);
  // An error is read, not glanced at: it stays three times as long.
  const shown = kind === "error" ? 9600 : 3200;
  setTimeout(() => t.classList.add("out"), shown);
  setTimeout(() => t.remove(), shown + 400);
}

/**
 * A refusal that names the field to fix (a taken address): dialog() shows the message, puts the focus on that field
 * and marks it invalid until it is edited.
 */
export class FieldError extends Error {
  constructor(
    message: string,
    readonly field: HTMLElement,
  ) {
    super(message);
  }
}

const FIELDS = "input:not([type=hidden]):not(:disabled), textarea:not(:disabled), select:not(:disabled)";

/**
 * The field of `form` a refused submit puts the focus on: the one the error names (a FieldError's, or the field of
 * the server's validation error, kept as the error's cause by createOne), else the first field, else `fallback`.
 */
function fieldInError(form: HTMLFormElement, err: unknown, fallback: HTMLElement): { el: HTMLElement; named: boolean } {
  if (err instanceof FieldError && err.field.isConnected) return { el: err.field, named: true };
  const cause = err instanceof Error ? err.cause : null;
  const name = [err, cause]
    .map((e) => ((e as { details?: { field?: unknown } } | null)?.details?.field ?? null) as unknown)
    .find((f): f is string => typeof f === "string");
  const named = name ? [...form.querySelectorAll<HTMLElement>(FIELDS)].find((f) => f.getAttribute("name") === name) : undefined;
  if (named) return { el: named, named: true };
  return { el: form.querySelector<HTMLElement>(FIELDS) ?? fallback, named: false };
}

/**
 * A modal built on <dialog>; resolves with the form's values, or null when cancelled. While it is open it owns the
 * keyboard: the page's shortcuts (keys.ts) stand down and Escape closes it (the browser's own handling).
 */
export function dialog<T>(
  title: string,
  body: Child,
  opts: {
    submit: string;
    danger?: boolean;
    noCancel?: boolean;
    collect?: () => T | null;
    /**
     * Runs with the collected value before the dialog closes; what it throws is shown in the dialog,
     * which stays open with what the user typed (a server's refusal is fixed there, not typed again).
     */
    apply?: (v: T) => Promise<void>;
  },
): Promise<T | null> {
  return new Promise((resolve) => {
    const dlg = h("dialog.modal");
    const form = h(
      "form",
      { method: "dialog" },
      h("h2", null, title),
      h("div.modal-body", null, body),
      h(
        "div.modal-actions",
        null,
        opts.noCancel ? null : h("button.btn", { type: "button", value: "cancel", onclick: () => dlg.close("cancel") }, "Cancel"),
        h(`button.btn.${opts.danger ? "danger" : "primary"}`, { type: "submit", value: "ok" }, opts.submit),
      ),
    );
    const failure = h("p.form-error", { role: "alert", dataset: { test: "dialog-error" } });
    form.querySelector(".modal-body")!.appendChild(failure);
    let result: T | null = null;
    form.addEventListener("submit", (e) => {
      if (opts.collect) {
        const v = opts.collect();
        if (v === null) {
          e.preventDefault();
          return;
        }
        result = v;
      } else result = true as T;
      if (!opts.apply) return;
      e.preventDefault();
      const button = form.querySelector<HTMLButtonElement>("button[type=submit]")!;
      button.disabled = true;
      failure.textContent = "";
      opts.apply(result).then(
        () => dlg.close("ok"),
        (err) => {
          failure.textContent = err instanceof Error ? err.message : String(err);
          button.disabled = false;
          // Disabling the focused submit button dropped the focus to <body>: give it back to what is to be fixed.
          if (!dlg.open) return;
          const { el, named } = fieldInError(form, err, button);
          if (named) {
            el.setAttribute("aria-invalid", "true");
            const clear = () => el.removeAttribute("aria-invalid");
            el.addEventListener("input", clear, { once: true });
            el.addEventListener("change", clear, { once: true });
          }
          el.focus();
          if (el instanceof HTMLInputElement && ["text", "search", "url", "email", ""].includes(el.getAttribute("type") ?? "")) el.select();
        },
      );
    });
    dlg.appendChild(form);
    dlg.addEventListener("close", () => {
      dlg.remove();
      resolve(dlg.returnValue === "ok" ? result : null);
    });
    document.body.appendChild(dlg);
    dlg.showModal();
    (form.querySelector("input, textarea, select") as HTMLElement | null)?.focus();
  });
}

/**
 * A button that shows only an icon: its label is both its tooltip and its accessible name (a screen
 * reader, or a phone that hides button text, has nothing else to go by).
 */
export function iconButton(
  label: string,
  iconName: string,
  onclick: (e: Event) => void,
  opts: { test?: string; danger?: boolean; title?: string; pressed?: boolean; small?: boolean } = {},
): HTMLElement {
  return h(
    `button.icon-btn${opts.small ? ".sm" : ""}${opts.danger ? ".danger" : ""}`,
    {
      // Never a form's submit button, also inside a dialog.
      type: "button",
      title: opts.title ?? label,
      "aria-label": label,
      "aria-pressed": opts.pressed === undefined ? undefined : String(opts.pressed),
      class: opts.pressed ? "on" : "",
      onclick,
      dataset: opts.test ? { test: opts.test } : undefined,
    },
    icon(iconName, opts.small ? 14 : 16),
  );
}

/** Shows a secret the server gives out once (an API key, a webhook's signing secret) in `box`, with Copy and a dismiss. */
export function showSecretOnce(box: HTMLElement, heading: string, secret: string) {
  replace(
    box,
    h(
      "div.secret-box",
      { dataset: { test: "secret" } },
      h("div", null, h("strong", null, heading), " Copy the secret now: it is not shown again."),
      h(
        "div.secret-row",
        null,
        h("code.secret", null, secret),
        h("button.btn.sm.primary", { onclick: () => void copyText(secret, "Secret copied") }, icon("copy", 14), "Copy"),
      ),
      h("button.btn.link.sm", { onclick: () => replace(box) }, "I have stored it"),
    ),
  );
}

export const confirmDialog = (title: string, text: string, submit = "Delete") =>
  dialog<boolean>(title, h("p", null, text), { submit, danger: true }).then((v) => v === true);

export function empty(title: string, text?: string, iconName = "inbox"): HTMLElement {
  return h("div.empty", null, icon(iconName, 36), h("strong", null, title), text ? h("p", null, text) : null);
}

export function spinner(text = "Loading…") {
  return h("div.loading", null, h("span.spin"), text);
}

export function json(v: unknown): string {
  return JSON.stringify(v, null, 2);
}

/** Downloads a Blob under a file name (object URL; revoked after the click). */
export function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = h("a", { href: url, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
