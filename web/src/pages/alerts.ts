// The alerts bell: unread count from GET /v1/alerts (meta.unread_count), a drop-down of recent
// alerts, mark one (on open) or all read with POST /v1/alerts/mark-read.
import { api, ApiFailure, describe, list } from "../api";
import { empty, h, icon, relTime, replace, toast } from "../dom";
import { debounce, onLive } from "../live";

interface Alert {
  id: string;
  type: string;
  channel: string;
  severity: string;
  title: string;
  detail: string;
  resource_type: string;
  resource_id: string;
  inbox?: { id: string; address: string } | null;
  count: number;
  occurred_at: string;
  read_at: string | null;
}

export class AlertsBell {
  readonly el: HTMLElement;
  private badge = h("span.badge.hidden", { dataset: { test: "alerts-count" } });
  private panel = h("div.panel.hidden", { role: "dialog", "aria-label": "Alerts" });
  private button: HTMLButtonElement;
  private alerts: Alert[] = [];
  private unread = 0;
  private unavailable: string | null = null;
  private off: () => void;
  private outside = (e: MouseEvent) => {
    if (!this.el.contains(e.target as Node)) this.close();
  };

  constructor() {
    this.button = h(
      "button.btn.icon-btn.bell",
      { title: "Alerts", "aria-label": "Alerts", onclick: () => this.toggle() },
      icon("bell", 18),
      this.badge,
    );
    this.el = h("div.bell-wrap", null, this.button, this.panel);
    const again = debounce(() => void this.refresh(), 300);
    this.off = onLive((e) => {
      if (
        e.type === "poll" ||
        e.type.startsWith("alert") ||
        e.type.startsWith("message.") ||
        e.type.startsWith("inbox.") ||
        e.type === "team.quota"
      )
        again();
    });
    document.addEventListener("click", this.outside);
  }

  destroy() {
    this.off();
    document.removeEventListener("click", this.outside);
  }

  async refresh() {
    try {
      const r = await list<Alert>("/v1/alerts?limit=20");
      this.alerts = r.data;
      this.unread = Number(r.meta.unread_count ?? r.data.filter((a) => !a.read_at).length);
      this.unavailable = null;
    } catch (e) {
      this.alerts = [];
      this.unread = 0;
      this.unavailable = e instanceof ApiFailure && e.routeMissing ? "Alerts are not available on this server yet." : describe(e);
    }
    this.badge.textContent = this.unread > 99 ? "99+" : String(this.unread);
    this.badge.classList.toggle("hidden", this.unread === 0);
    this.button.title = this.unread ? `${this.unread} unread alerts` : "Alerts";
    if (!this.panel.classList.contains("hidden")) this.renderPanel();
  }

  private toggle() {
    if (this.panel.classList.contains("hidden")) {
      this.panel.classList.remove("hidden");
      this.renderPanel();
      void this.refresh();
    } else this.close();
  }

  private close() {
    this.panel.classList.add("hidden");
  }

  private async markRead(ids?: string[]) {
    try {
      const r = await api("/v1/alerts/mark-read", { method: "POST", json: ids ? { ids } : {} });
      this.unread = r?.data?.unread_count ?? this.unread;
      await this.refresh();
    } catch (e) {
      toast(`Could not mark read: ${describe(e)}`, "error");
    }
  }

  private renderPanel() {
    const head = h(
      "div.panel-head",
      null,
      h("strong", null, "Alerts"),
      this.unread
        ? h("button.btn.link", { onclick: () => void this.markRead(), dataset: { test: "alerts-mark-all" } }, "Mark all read")
        : null,
    );
    const body = this.unavailable
      ? empty("No alerts", this.unavailable, "bell")
      : this.alerts.length === 0
        ? empty("No alerts", "Watch an inbox to be alerted when mail arrives or it is about to expire.", "bell")
        : h(
            "ul.alert-list",
            null,
            this.alerts.map((a) =>
              h(
                "li",
                { class: a.read_at ? "read" : "unread" },
                h(
                  "button.alert-item",
                  {
                    onclick: () => {
                      if (!a.read_at) void this.markRead([a.id]);
                      const inbox = a.inbox?.id ?? (a.resource_type === "inbox" ? a.resource_id : null);
                      if (inbox) location.hash = `/inboxes/${inbox}`;
                      this.close();
                    },
                  },
                  h("span.sev", { class: a.severity || "info" }),
                  h(
                    "span.alert-text",
                    null,
                    h(
                      "span.alert-title",
                      null,
                      a.title || a.type,
                      a.count > 1 && !(a.title ?? "").includes(String(a.count)) ? h("span.count", null, ` ×${a.count}`) : null,
                    ),
                    h("span.alert-detail", null, a.detail || a.inbox?.address || ""),
                    h("span.alert-time", null, relTime(a.occurred_at)),
                  ),
                ),
              ),
            ),
          );
    replace(this.panel, head, body);
  }
}
