// Approvals queue: parked sensitive steps with their binding snapshot; approve, or reject with a reason.
import { api, ApiFailure, describe, list } from "../api";
import { countdown, dialog, empty, h, icon, json, relTime, replace, spinner, toast } from "../dom";
import { pushKeys, reveal } from "../keys";
import { debounce, onLive } from "../live";
import type { Page } from "../main";

interface Approval {
  ulid: string;
  id?: string;
  status: string;
  action: string;
  run_ulid: string;
  step_index: number;
  target_resource_type: string;
  target_resource_id: string;
  binding_snapshot: Record<string, unknown>;
  expires_at: string;
  decided_at: string | null;
  decision_reason: string | null;
  self_approved: boolean;
  created_at?: string;
}

const FILTERS = ["pending", "approved", "rejected", "expired", "all"] as const;
const idOf = (a: Approval) => a.ulid ?? a.id!;

export class ApprovalsPage implements Page {
  private status: (typeof FILTERS)[number] = "pending";
  private items: Approval[] = [];
  private next: string | null = null;
  private error: { title: string; text: string } | null = null;
  private loaded = false;
  private selected = -1;
  private listEl = h("div.cards", { dataset: { test: "approvals" } });
  private filterEl = h("div.segmented");
  private cleanups: (() => void)[] = [];

  mount(root: HTMLElement) {
    replace(
      root,
      h(
        "div.page",
        null,
        h(
          "div.page-head",
          null,
          h(
            "div",
            null,
            h("h1", null, "Approvals"),
            h(
              "p.muted",
              null,
              "Runs park at sensitive steps until an owner or admin decides. The snapshot shows exactly what will be done.",
            ),
          ),
          this.filterEl,
        ),
        this.listEl,
      ),
    );
    const again = debounce(() => void this.load(), 200);
    this.cleanups.push(onLive((e) => (e.type === "poll" || e.type.startsWith("approval") || e.type.startsWith("run.")) && again()));
    this.cleanups.push(
      pushKeys({
        rows: () => [...this.listEl.querySelectorAll<HTMLElement>(".card")],
        selected: () => this.selected,
        select: (i) => {
          this.selected = i;
          const cards = [...this.listEl.querySelectorAll<HTMLElement>(".card")];
          cards.forEach((c, j) => c.classList.toggle("selected", i === j));
          reveal(cards[i]);
        },
        open: (i) => {
          const a = this.items[i];
          if (a) location.hash = `/runs/${a.run_ulid}`;
        },
      }),
    );
    this.renderFilters();
    void this.load();
  }

  unmount() {
    for (const c of this.cleanups) c();
  }

  private renderFilters() {
    replace(
      this.filterEl,
      FILTERS.map((f) =>
        h(
          "button.seg",
          {
            class: this.status === f ? "active" : "",
            onclick: () => {
              this.status = f;
              this.renderFilters();
              void this.load();
            },
          },
          f[0]!.toUpperCase() + f.slice(1),
        ),
      ),
    );
  }

  private async load(more = false) {
    const q = new URLSearchParams({ limit: "50" });
    if (this.status !== "all") q.set("status", this.status);
    if (more && this.next) q.set("cursor", this.next);
    try {
      const r = await list<Approval>(`/v1/approvals?${q}`);
      this.items = more ? [...this.items, ...r.data] : r.data;
      this.next = r.links.next;
      this.error = null;
    } catch (e) {
      this.items = [];
      this.error =
        e instanceof ApiFailure && e.routeMissing
          ? { title: "Approvals are not available", text: "This server does not offer the approvals API yet." }
          : e instanceof ApiFailure && e.status === 403
            ? { title: "Not permitted", text: "Only team owners and admins can see and decide approvals." }
            : { title: "Could not load approvals", text: describe(e) };
    }
    this.loaded = true;
    this.render();
  }

  private render() {
    if (!this.loaded) return replace(this.listEl, spinner());
    if (this.error) return replace(this.listEl, empty(this.error.title, this.error.text, "shield"));
    if (!this.items.length)
      return replace(
        this.listEl,
        empty(
          this.status === "pending" ? "Nothing waiting for you" : `No ${this.status === "all" ? "" : this.status + " "}approvals`,
          this.status === "pending" ? "When a run reaches a step marked for approval it appears here." : undefined,
          "shield",
        ),
      );
    replace(
      this.listEl,
      this.items.map((a, i) => this.card(a, i)),
      this.next ? h("button.btn.link.more", { onclick: () => void this.load(true) }, "Load more") : null,
    );
  }

  private card(a: Approval, i: number): HTMLElement {
    const pending = a.status === "pending";
    return h(
      "article.card",
      { class: i === this.selected ? "selected" : "", dataset: { id: idOf(a), test: "approval", status: a.status } },
      h(
        "div.card-head",
        null,
        h("span.pill", { class: a.status }, a.status),
        h("h3", null, a.action),
        a.target_resource_type
          ? h("span.muted", null, "on ", h("code", null, [a.target_resource_type, a.target_resource_id].filter(Boolean).join(" ")))
          : null,
        h("div.spacer"),
        pending
          ? h(
              "span.chip.expiry",
              { title: new Date(a.expires_at).toLocaleString() },
              icon("clock", 12),
              `expires in ${countdown(a.expires_at)}`,
            )
          : h("span.muted.small", null, a.decided_at ? `decided ${relTime(a.decided_at)}` : ""),
      ),
      h(
        "div.card-meta",
        null,
        h("span", null, "Run ", h("a", { href: `#/runs/${a.run_ulid}` }, h("code", null, a.run_ulid)), ` · step ${a.step_index + 1}`),
        a.self_approved ? h("span.chip.warn", null, "self-approved") : null,
        a.decision_reason ? h("span", null, "Reason: ", h("em", null, a.decision_reason)) : null,
      ),
      h("details.snapshot", { open: pending }, h("summary", null, "Binding snapshot"), h("pre.json", null, json(a.binding_snapshot))),
      pending
        ? h(
            "div.card-actions",
            null,
            h("button.btn.primary", { onclick: () => void this.approve(a), dataset: { test: "approve" } }, icon("check", 14), "Approve"),
            h("button.btn.danger", { onclick: () => void this.reject(a), dataset: { test: "reject" } }, icon("x", 14), "Reject…"),
          )
        : null,
    );
  }

  private async approve(a: Approval) {
    try {
      await api(`/v1/approvals/${idOf(a)}/approve`, { method: "POST" });
      toast(`Approved: ${a.action}. The run resumes.`, "ok");
    } catch (e) {
      toast(e instanceof ApiFailure && e.status === 410 ? "This approval has expired." : `Could not approve: ${describe(e)}`, "error");
    }
    void this.load();
  }

  private async reject(a: Approval) {
    const reason = h("textarea", { maxLength: 500, rows: 3, placeholder: "Why? (optional, shown on the run)" });
    const v = await dialog<string>(
      "Reject this step?",
      h("div.form-grid", null, h("p", null, `The run fails at “${a.action}”.`), h("label", null, "Reason", reason)),
      {
        submit: "Reject",
        danger: true,
        collect: () => reason.value.trim(),
      },
    );
    if (v === null) return;
    try {
      await api(`/v1/approvals/${idOf(a)}/reject`, { method: "POST", json: { reason: v || null } });
      toast("Rejected; the run fails.", "ok");
    } catch (e) {
      toast(e instanceof ApiFailure && e.status === 410 ? "This approval has expired." : `Could not reject: ${describe(e)}`, "error");
    }
    void this.load();
  }
}
