// Webhooks (#/webhooks): register one (its signing secret shown once) or delete it; each
// endpoint's health (state, failures in a row, when an open circuit is tried again, last success
// and failure), pause/resume and a test send. #/webhooks/ID adds its recent deliveries with every
// try (status code, error, response excerpt) and a redeliver for finished ones. Delivery outcomes
// emit no live event, so the page refetches on a timer: every 1.5 s while something is pending or
// a circuit is open, else every 5 s.
import { ApiFailure, api, createOne, describe, list } from "../api";
import { confirmDialog, countdown, dialog, empty, fullTime, h, icon, relTime, replace, showSecretOnce, spinner, toast } from "../dom";
import { pushKeys, reveal } from "../keys";
import { debounce, onLive } from "../live";
import type { Page } from "../main";
import type { Inbox } from "./mail";
// The one vocabulary the server checks (pure data, safe to bundle).
import { WEBHOOK_EVENT_TYPES } from "../../../src/events/webhook-event-types";

interface Health {
  state: "healthy" | "failing" | "circuit_open" | "paused" | "disabled";
  consecutive_failures: number;
  circuit_open_until: string | null;
  last_success_at: string | null;
  last_failure_at: string | null;
}

interface Webhook {
  id: string;
  url: string;
  description: string | null;
  event_types: string[];
  inbox_id: string | null;
  enabled: boolean;
  paused: boolean;
  health: Health;
  created_at: string;
  updated_at: string;
  /** In the answer to the create only. */
  secret?: string;
}

interface Attempt {
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  ok: boolean;
  error: string | null;
  response_excerpt: string | null;
}

interface Delivery {
  id: string;
  event_id?: string | null;
  event_type: string;
  status: "pending" | "succeeded" | "failed";
  attempt_count: number;
  max_attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  completed_at: string | null;
  attempts: Attempt[];
}

const FILTERS = ["all", "pending", "succeeded", "failed"] as const;
type Filter = (typeof FILTERS)[number];

/** The health states drawn with the pill colours app.css already has. */
const TONE: Record<string, string> = {
  healthy: "succeeded",
  failing: "pending",
  circuit_open: "failed",
  paused: "pending",
  disabled: "",
};

const label = (s: string) => s.replaceAll("_", " ");

function healthPill(w: Webhook): HTMLElement {
  return h(
    "span.pill",
    { class: TONE[w.health.state] ?? "", dataset: { test: "health-state", state: w.health.state } },
    label(w.health.state),
  );
}

function when(ts: string | null, none: string): HTMLElement {
  return h("span", { title: ts ? fullTime(ts) : "" }, ts ? relTime(ts) : none);
}

function notAvailable(e: unknown): { title: string; text: string } {
  if (e instanceof ApiFailure && e.routeMissing)
    return { title: "Webhooks are not available", text: "This server does not offer the webhooks API." };
  if (e instanceof ApiFailure && e.status === 403) return { title: "Not permitted", text: "Your access does not include webhooks:read." };
  if (e instanceof ApiFailure && e.status === 404) return { title: "Webhook not found", text: "It does not exist in this project." };
  return { title: "Could not load webhooks", text: describe(e) };
}

export class WebhooksPage implements Page {
  private root!: HTMLElement;
  private id: string | null = null;
  private hooks: Webhook[] = [];
  private hasMore = false;
  private deliveries: Delivery[] = [];
  private deliveriesNext: string | null = null;
  private status: Filter = "all";
  private error: { title: string; text: string } | null = null;
  private deliveriesError: string | null = null;
  private selected = -1;
  /** Delivery ids whose list of tries is unfolded (kept across refetches). */
  private unfolded = new Set<string>();
  /** What is on screen, to redraw only when it changed (a click never lands on a replaced button). */
  private drawn = "";
  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private dead = false;
  private cleanups: (() => void)[] = [];
  private listEl = h("div.cards", { dataset: { test: "webhooks" } });
  private secretBox = h("div");
  private hookEl = h("div");
  private filterEl = h("div.segmented");
  private deliveriesEl = h("div.cards", { dataset: { test: "deliveries" } });

  mount(root: HTMLElement, params: string[]) {
    this.root = root;
    // Mail arriving is what queues deliveries: look again shortly after.
    const again = debounce(() => void this.load(), 800);
    this.cleanups.push(onLive((e) => (e.type === "poll" || e.type.startsWith("message.") || e.type.startsWith("run.")) && again()));
    const tick = setInterval(() => {
      for (const el of this.root.querySelectorAll<HTMLElement>(".cd[data-until]")) el.textContent = countdown(el.dataset.until);
    }, 1000);
    this.cleanups.push(() => clearInterval(tick));
    this.cleanups.push(
      pushKeys({
        rows: () => (this.id ? [] : [...this.listEl.querySelectorAll<HTMLElement>(".card")]),
        selected: () => this.selected,
        select: (i) => {
          this.selected = i;
          const cards = [...this.listEl.querySelectorAll<HTMLElement>(".card")];
          cards.forEach((c, j) => c.classList.toggle("selected", i === j));
          reveal(cards[i]);
        },
        open: (i) => {
          const w = this.hooks[i];
          if (w) location.hash = `/webhooks/${w.id}`;
        },
        back: () => {
          if (this.id) location.hash = "/webhooks";
        },
      }),
    );
    this.update(params);
  }

  unmount() {
    this.dead = true;
    if (this.timer) clearTimeout(this.timer);
    for (const c of this.cleanups) c();
  }

  update(params: string[]) {
    this.id = params[0] ?? null;
    this.error = null;
    this.deliveriesError = null;
    this.drawn = "";
    this.deliveries = [];
    this.deliveriesNext = null;
    this.status = "all";
    this.unfolded.clear();
    if (this.id) {
      replace(
        this.root,
        h(
          "div.page",
          null,
          h("a.crumb", { href: "#/webhooks" }, icon("back", 14), "All webhooks"),
          this.hookEl,
          h("h2", null, "Recent deliveries"),
          h("div.card-actions", { style: "margin:0 0 12px" }, this.filterEl),
          this.deliveriesEl,
        ),
      );
      this.renderFilters();
      replace(this.hookEl, spinner());
      replace(this.deliveriesEl);
    } else {
      replace(
        this.root,
        h(
          "div.page",
          null,
          h(
            "div.page-head",
            null,
            h(
              "div",
              null,
              h("h1", null, "Webhooks"),
              h(
                "p.muted",
                null,
                "Endpoints this project sends events to, and how each is doing. Each request is signed (docs/webhooks.md).",
              ),
            ),
            h("button.btn.primary", { onclick: () => void this.create(), dataset: { test: "new-webhook" } }, icon("plus"), "New webhook"),
          ),
          this.secretBox,
          this.listEl,
        ),
      );
      replace(this.listEl, spinner());
    }
    void this.load();
  }

  private renderFilters() {
    replace(
      this.filterEl,
      FILTERS.map((f) =>
        h(
          "button.seg",
          {
            class: this.status === f ? "active" : "",
            dataset: { filter: f },
            onclick: () => {
              this.status = f;
              this.deliveries = [];
              this.deliveriesNext = null;
              this.renderFilters();
              replace(this.deliveriesEl, spinner());
              this.drawn = "";
              void this.load();
            },
          },
          f[0]!.toUpperCase() + f.slice(1),
        ),
      ),
    );
  }

  /** Refetches what the current view shows; `more` appends the next page of deliveries. */
  private async load(more = false) {
    if (this.dead) return;
    const seq = ++this.seq;
    const id = this.id;
    if (this.timer) clearTimeout(this.timer);
    let hooks = this.hooks;
    let hasMore = this.hasMore;
    let deliveries = this.deliveries;
    let next = this.deliveriesNext;
    let error: { title: string; text: string } | null = null;
    let deliveriesError: string | null = null;
    try {
      if (id) hooks = [(await api<{ data: Webhook }>(`/v1/webhooks/${id}`)).data];
      else {
        const r = await list<Webhook>("/v1/webhooks?limit=100");
        hooks = r.data;
        hasMore = r.meta?.has_more ?? false;
      }
    } catch (e) {
      error = notAvailable(e);
    }
    if (id && !error) {
      const q = new URLSearchParams();
      if (this.status !== "all") q.set("status", this.status);
      if (more && next) {
        q.set("cursor", next);
        q.set("limit", "25");
      } else q.set("limit", String(Math.min(100, Math.max(25, this.deliveries.length))));
      try {
        const r = await list<Delivery>(`/v1/webhooks/${id}/deliveries?${q}`);
        deliveries = more ? [...this.deliveries, ...r.data] : r.data;
        next = r.links?.next ?? null;
      } catch (e) {
        deliveriesError = describe(e);
      }
    }
    // A newer load, another view or an unmounted page: this answer is stale.
    if (seq !== this.seq || id !== this.id || this.dead) return;
    this.hooks = error ? [] : hooks;
    this.hasMore = hasMore;
    this.deliveries = deliveries;
    this.deliveriesNext = next;
    this.error = error;
    this.deliveriesError = deliveriesError;
    this.render();
    this.schedule();
  }

  private schedule() {
    if (this.timer) clearTimeout(this.timer);
    const busy = this.deliveries.some((d) => d.status === "pending") || this.hooks.some((w) => w.health.state === "circuit_open");
    this.timer = setTimeout(
      () => {
        if (document.hidden) this.schedule();
        else void this.load();
      },
      busy ? 1500 : 5000,
    );
  }

  /** Replaces one webhook with the server's answer of an action and redraws. */
  private put(w: Webhook) {
    this.hooks = this.hooks.map((x) => (x.id === w.id ? w : x));
    this.render();
  }

  private render() {
    // Relative times go stale: redraw at least every 30 s even when nothing changed.
    const key = JSON.stringify([this.error, this.hooks, this.deliveries, this.deliveriesError, this.id, Math.floor(Date.now() / 30_000)]);
    if (key === this.drawn) return;
    this.drawn = key;
    if (this.id) return this.renderDetail();
    if (this.error) return replace(this.listEl, empty(this.error.title, this.error.text, "webhook"));
    if (!this.hooks.length)
      return replace(
        this.listEl,
        empty(
          "No webhooks",
          "Register an endpoint with New webhook (or POST /v1/webhooks); its health and deliveries show here.",
          "webhook",
        ),
      );
    replace(
      this.listEl,
      this.hooks.map((w, i) => this.card(w, i)),
      this.hasMore ? h("p.muted.small.center", null, "Showing the first 100 webhooks.") : null,
    );
  }

  private renderDetail() {
    if (this.error) {
      replace(this.hookEl, empty(this.error.title, this.error.text, "webhook"));
      replace(this.deliveriesEl);
      return;
    }
    const w = this.hooks[0];
    if (!w) return;
    replace(this.hookEl, this.card(w, -1));
    if (this.deliveriesError) return replace(this.deliveriesEl, empty("Could not load deliveries", this.deliveriesError, "clock"));
    if (!this.deliveries.length)
      return replace(
        this.deliveriesEl,
        empty(
          this.status === "all" ? "No deliveries yet" : `No ${this.status} deliveries`,
          this.status === "all" ? "Events this webhook takes, and test sends, show here." : undefined,
          "clock",
        ),
      );
    replace(
      this.deliveriesEl,
      this.deliveries.map((d) => this.deliveryCard(w, d)),
      this.deliveriesNext ? h("button.btn.link.more", { onclick: () => void this.load(true) }, "Load more") : null,
    );
  }

  private card(w: Webhook, i: number): HTMLElement {
    const hl = w.health;
    const detail = i < 0;
    return h(
      "article.card",
      { class: i >= 0 && i === this.selected ? "selected" : "", dataset: { id: w.id, test: "webhook", state: hl.state } },
      h(
        "div.card-head",
        null,
        detail
          ? h("h1", { style: "overflow-wrap:anywhere;min-width:0", dataset: { test: "webhook-url" } }, w.url)
          : h(
              "h3",
              { style: "overflow-wrap:anywhere;min-width:0" },
              h("a", { href: `#/webhooks/${w.id}`, dataset: { test: "webhook-url" } }, w.url),
            ),
        h("div.spacer"),
        healthPill(w),
      ),
      w.description ? h("p.muted", { style: "margin:6px 0 0" }, w.description) : null,
      h(
        "div.card-meta",
        { dataset: { test: "health" } },
        hl.consecutive_failures > 0
          ? h(
              "span.chip",
              { class: hl.state === "circuit_open" ? "bad" : "warn", dataset: { test: "failures" } },
              `${hl.consecutive_failures} ${hl.consecutive_failures === 1 ? "failure" : "failures"} in a row`,
            )
          : null,
        hl.state === "circuit_open" && hl.circuit_open_until
          ? h(
              "span.chip.warn",
              { title: fullTime(hl.circuit_open_until), dataset: { test: "retry-at" } },
              icon("clock", 12),
              `retrying at ${new Date(hl.circuit_open_until).toLocaleTimeString()} (in `,
              // Ticks on its own (below): a redraw is skipped while the data stays the same.
              h("span.cd", { dataset: { until: hl.circuit_open_until } }, countdown(hl.circuit_open_until)),
              ")",
            )
          : null,
        h("span", { dataset: { test: "last-success" } }, "Last success: ", when(hl.last_success_at, "never")),
        h("span", { dataset: { test: "last-failure" } }, "Last failure: ", when(hl.last_failure_at, "never")),
      ),
      h(
        "div.card-meta",
        null,
        h(
          "span",
          { dataset: { test: "event-types" } },
          "Events: ",
          w.event_types.map((t) => h("span.chip", { style: "margin-right:4px" }, t)),
        ),
        h("span", null, "Inbox: ", w.inbox_id ? h("a", { href: `#/inboxes/${w.inbox_id}` }, h("code", null, w.inbox_id)) : "all inboxes"),
        w.enabled ? null : h("span.chip.warn", null, "disabled: queues nothing"),
        h("span", { title: fullTime(w.created_at) }, `Created ${relTime(w.created_at)}`),
      ),
      h(
        "div.card-actions",
        { style: "flex-wrap:wrap" },
        w.paused
          ? h(
              "button.btn.primary",
              { onclick: (e: Event) => void this.setPaused(w, false, e), dataset: { test: "resume" } },
              icon("play", 14),
              "Resume",
            )
          : h(
              "button.btn",
              { onclick: (e: Event) => void this.setPaused(w, true, e), dataset: { test: "pause" } },
              icon("pause", 14),
              "Pause",
            ),
        // Resuming also closes an open circuit: what queued goes out now instead of at the retry time.
        !w.paused && hl.state === "circuit_open"
          ? h(
              "button.btn",
              {
                title: "Close the circuit and send what queued now",
                onclick: (e: Event) => void this.setPaused(w, false, e),
                dataset: { test: "retry-now" },
              },
              icon("refresh", 14),
              "Retry now",
            )
          : null,
        h("button.btn", { onclick: (e: Event) => void this.sendTest(w, e), dataset: { test: "send-test" } }, icon("send", 14), "Send test"),
        detail
          ? null
          : h(
              "button.btn",
              { onclick: () => (location.hash = `/webhooks/${w.id}`), dataset: { test: "deliveries" } },
              icon("clock", 14),
              "Deliveries",
            ),
        h("div.spacer"),
        h("button.btn.danger", { onclick: () => void this.remove(w), dataset: { test: "delete-webhook" } }, icon("trash", 14), "Delete"),
      ),
    );
  }

  /** The form of a new webhook; on success its signing secret is shown once, above the list. */
  private async create() {
    const url = h("input", { name: "url", type: "url", required: true, placeholder: "your receiver: http(s) URL" });
    const description = h("input", { name: "description", maxLength: 500, placeholder: "optional" });
    const types = WEBHOOK_EVENT_TYPES.map((t) => h("input", { type: "checkbox", value: t, checked: t === "message.received" }));
    const inbox = h("select", { name: "inbox_id" }, h("option", { value: "" }, "All inboxes"));
    // The inbox list fills in while the form is open; a project with more than 100 keeps "All inboxes" and the first 100.
    list<Inbox>("/v1/inboxes?limit=100").then(
      (r) => inbox.append(...r.data.map((ib) => h("option", { value: ib.id }, ib.name ? `${ib.name} (${ib.address})` : ib.address))),
      () => {},
    );
    let created: Webhook | null = null;
    const v = await dialog<{ url: string; description?: string; event_types: string[]; inbox_id?: string }>(
      "New webhook",
      h(
        "div.form-grid",
        null,
        h("label", null, "URL", url),
        h("label", null, "Description", description),
        h(
          "div",
          { role: "group", "aria-label": "Events" },
          h("div", null, "Events"),
          h(
            "div.scope-grid",
            { dataset: { test: "event-types" } },
            types.map((b) => h("label.check", null, b, b.value)),
          ),
        ),
        h("label", null, "Inbox", inbox),
      ),
      {
        submit: "Create webhook",
        collect: () => {
          if (!url.reportValidity()) return null;
          const chosen = types.filter((b) => b.checked).map((b) => b.value);
          if (chosen.length === 0) {
            types[0]!.setCustomValidity("Choose at least one event.");
            types[0]!.reportValidity();
            types[0]!.setCustomValidity("");
            return null;
          }
          return {
            url: url.value.trim(),
            event_types: chosen,
            ...(description.value.trim() ? { description: description.value.trim() } : {}),
            ...(inbox.value ? { inbox_id: inbox.value } : {}),
          };
        },
        apply: async (v) => {
          created = await createOne<Webhook>("/v1/webhooks", v, "the webhook");
        },
      },
    );
    if (!v || !created) return;
    // Assigned in apply, which TypeScript does not follow.
    const w: Webhook = created;
    showSecretOnce(this.secretBox, `Created the webhook to ${w.url}.`, w.secret ?? "");
    void this.load();
  }

  private async remove(w: Webhook) {
    if (!(await confirmDialog("Delete this webhook?", `Nothing more is sent to ${w.url}; its deliveries, queued and past, go with it.`)))
      return;
    try {
      await api(`/v1/webhooks/${w.id}`, { method: "DELETE" });
      toast("Webhook deleted", "ok");
      if (this.id) location.hash = "/webhooks";
      else void this.load();
    } catch (e) {
      toast(`Could not delete: ${describe(e)}`, "error");
    }
  }

  private deliveryCard(w: Webhook, d: Delivery): HTMLElement {
    const last = d.attempts[d.attempts.length - 1];
    const tries = h(
      "details.snapshot",
      {
        open: this.unfolded.has(d.id),
        ontoggle: (e: Event) => {
          if ((e.currentTarget as HTMLDetailsElement).open) this.unfolded.add(d.id);
          else this.unfolded.delete(d.id);
        },
      },
      h("summary", null, `All tries (${d.attempts.length})`),
      h(
        "ol.timeline",
        { style: "margin-top:8px" },
        d.attempts.map((a) =>
          h(
            "li",
            { class: a.ok ? "good" : "bad" },
            h("span.tl-dot"),
            h(
              "div.tl-body",
              null,
              h(
                "div.tl-head",
                null,
                h("strong", null, `Try ${a.attempt}: ${a.status_code !== null ? `HTTP ${a.status_code}` : "no answer"}`),
                h("span.muted.small", { title: fullTime(a.started_at) }, `${relTime(a.started_at)} · ${a.duration_ms} ms`),
              ),
              a.error ? h("div.small.muted", null, a.error) : null,
              a.response_excerpt ? h("pre.json", null, a.response_excerpt) : null,
            ),
          ),
        ),
      ),
    );
    return h(
      "article.card",
      { dataset: { id: d.id, test: "delivery", status: d.status } },
      h(
        "div.card-head",
        null,
        h("span.pill", { class: d.status, dataset: { test: "delivery-status" } }, d.status),
        h("h3", null, d.event_type),
        d.event_id === null ? h("span.chip", null, "test") : null,
        h("div.spacer"),
        h("span.muted.small", { title: fullTime(d.created_at) }, `queued ${relTime(d.created_at)}`),
      ),
      h(
        "div.card-meta",
        null,
        h("span", { dataset: { test: "attempts" } }, `Tries: ${d.attempt_count} of ${d.max_attempts}`),
        h(
          "span",
          { dataset: { test: "last-status" } },
          "Last status: ",
          d.last_status_code !== null ? h("code", null, String(d.last_status_code)) : d.attempt_count ? "no answer" : "not tried yet",
        ),
        d.status === "pending" && d.next_attempt_at
          ? h("span", { title: fullTime(d.next_attempt_at) }, `Next try ${relTime(d.next_attempt_at)}`)
          : null,
        d.completed_at ? h("span", { title: fullTime(d.completed_at) }, `Finished ${relTime(d.completed_at)}`) : null,
      ),
      d.last_error
        ? h("div.notice.bad", { style: "margin-top:8px", dataset: { test: "last-error" } }, h("span", null, d.last_error))
        : null,
      last
        ? h(
            "div",
            { style: "margin-top:8px" },
            h("div.small.muted", null, `Response to try ${last.attempt}`),
            last.response_excerpt
              ? h("pre.json", { dataset: { test: "excerpt" } }, last.response_excerpt)
              : h("div.small", { dataset: { test: "excerpt" } }, "(empty)"),
          )
        : null,
      d.attempts.length > 1 ? tries : null,
      d.status === "pending"
        ? null
        : h(
            "div.card-actions",
            null,
            h(
              "button.btn",
              { onclick: (e: Event) => void this.redeliver(w, d, e), dataset: { test: "redeliver" } },
              icon("refresh", 14),
              "Redeliver",
            ),
          ),
    );
  }

  private async setPaused(w: Webhook, paused: boolean, e: Event) {
    (e.currentTarget as HTMLButtonElement).disabled = true;
    try {
      const r = await api<{ data: Webhook }>(`/v1/webhooks/${w.id}/${paused ? "pause" : "resume"}`, { method: "POST" });
      this.put(r.data);
      toast(paused ? "Paused: events keep queueing, nothing is sent until you resume." : "Resumed: what queued goes out now.", "ok");
    } catch (err) {
      toast(`Could not ${paused ? "pause" : "resume"}: ${describe(err)}`, "error");
      this.drawn = "";
      this.render();
    }
    void this.load();
  }

  private async sendTest(w: Webhook, e: Event) {
    const btn = e.currentTarget as HTMLButtonElement;
    let type = w.event_types[0] ?? "message.received";
    if (w.event_types.length > 1) {
      const select = h(
        "select",
        { name: "event_type" },
        w.event_types.map((t) => h("option", { value: t }, t)),
      );
      const v = await dialog<string>(
        "Send a test event",
        h("div.form-grid", null, h("p", null, `A sample event goes to ${w.url} now, once.`), h("label", null, "Event type", select)),
        { submit: "Send", collect: () => select.value },
      );
      if (v === null) return;
      type = v;
    }
    btn.disabled = true;
    try {
      const d = (await api<{ data: Delivery }>(`/v1/webhooks/${w.id}/test`, { method: "POST", json: { event_type: type } })).data;
      if (d.status === "succeeded") toast(`Test delivered: HTTP ${d.last_status_code}`, "ok");
      else toast(`Test failed: ${d.last_error ?? (d.last_status_code !== null ? `HTTP ${d.last_status_code}` : d.status)}`, "error");
    } catch (err) {
      toast(`Could not send a test: ${describe(err)}`, "error");
    }
    btn.disabled = false;
    void this.load();
  }

  private async redeliver(w: Webhook, d: Delivery, e: Event) {
    (e.currentTarget as HTMLButtonElement).disabled = true;
    try {
      await api(`/v1/webhooks/${w.id}/deliveries/${d.id}/redeliver`, { method: "POST" });
      toast(w.paused ? "Redelivery queued; it goes out when you resume." : "Redelivery queued: one more try, now.", "ok");
    } catch (err) {
      toast(
        err instanceof ApiFailure && err.code === "delivery_pending"
          ? "This delivery is still pending; it is tried on its schedule."
          : `Could not redeliver: ${describe(err)}`,
        "error",
      );
    }
    this.drawn = "";
    void this.load();
  }
}
