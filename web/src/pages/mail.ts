// The mail page: three panes (inboxes | messages | message) that collapse to one on a phone.
// #/inboxes, #/inboxes/INBOX, #/inboxes/INBOX/MESSAGE. Live: SSE events refetch the lists.
import { api, ApiFailure, describe, list } from "../api";
import {
  confirmDialog,
  copyText,
  countdown,
  dialog,
  empty,
  FieldError,
  fmtBytes,
  h,
  icon,
  iconButton,
  replace,
  spinner,
  toast,
} from "../dom";
import { pushKeys, reveal } from "../keys";
import { debounce, onLive } from "../live";
import { MessageList } from "./messages";
import { Reader } from "./reader";
import { loadSmtpChaos, type SmtpChaosRule, smtpChaosDialog } from "./smtp-chaos";
import type { Page } from "../main";

export interface Inbox {
  id: string;
  address: string;
  name: string | null;
  type: string;
  status: string;
  message_count: number;
  unread_count: number;
  expires_at: string | null;
  created_at: string;
  watched: boolean;
  storage?: {
    inbox?: { used_bytes: number; quota_bytes: number; state: string };
    team?: { used_bytes: number; quota_bytes: number; state: string };
  };
  imap?: { host: string; port: number };
  pop3?: { host: string; port: number };
}

const TTLS: [string, number | null][] = [
  ["10 minutes", 600],
  ["1 hour", 3600],
  ["1 day", 86400],
  ["7 days", 604800],
  ["30 days", 2592000],
];

export function storageBar(s: { used_bytes: number; quota_bytes: number; state?: string } | undefined, label = false): HTMLElement | null {
  if (!s?.quota_bytes) return null;
  const pct = Math.min(100, (s.used_bytes / s.quota_bytes) * 100);
  const level = pct >= 90 ? "crit" : pct >= 70 ? "warn" : "ok";
  return h(
    "div.storage",
    { title: `Storage: ${fmtBytes(s.used_bytes)} of ${fmtBytes(s.quota_bytes)} (${pct.toFixed(1)}%)` },
    h("div.bar", null, h("div.fill", { class: level, style: `width:${Math.max(pct, s.used_bytes > 0 ? 1.5 : 0)}%` })),
    label ? h("span.storage-label", null, `${fmtBytes(s.used_bytes)} / ${fmtBytes(s.quota_bytes)}`) : null,
  );
}

export function expiryChip(ts: string | null): HTMLElement {
  if (!ts) return h("span.chip.persistent", { title: "Persistent mailbox: never expires" }, "persistent");
  const left = new Date(ts).getTime() - Date.now();
  return h(
    "span.chip.expiry",
    { class: left < 3600_000 ? "soon" : "", dataset: { expires: ts }, title: `Expires ${new Date(ts).toLocaleString()}` },
    icon("clock", 12),
    h("span.cd", null, countdown(ts)),
  );
}

export class MailPage implements Page {
  private root!: HTMLElement;
  private layout = h("div.mail");
  private inboxPane = h("section.pane.pane-inboxes", { "aria-label": "Inboxes" });
  private messagePane = h("section.pane.pane-messages", { "aria-label": "Messages" });
  private readerPane = h("section.pane.pane-reader", { "aria-label": "Message" });
  private inboxes: Inbox[] = [];
  private inboxNext: string | null = null;
  private inboxError: string | null = null;
  private loaded = false;
  private filter = "";
  private selectedInbox = -1;
  /** undefined until the first update(): #/inboxes then draws the message pane's empty state like any change would. */
  private inboxId: string | null | undefined = undefined;
  private messageId: string | null = null;
  private messages: MessageList | null = null;
  private reader: Reader | null = null;
  private listEl = h("div.rows", { role: "listbox", "aria-label": "Inboxes" });
  private countEl = h("span.count-label");
  private cleanups: (() => void)[] = [];
  /** "Connection faults" (docs/chaos.md): shown only to the instance's operator, whose read of the rules succeeds. */
  private faultsButton = h(
    "button.icon-btn.hidden",
    { "aria-label": "Connection faults", onclick: () => void this.editConnectionFaults(), dataset: { test: "smtp-chaos" } },
    // Not the inbox's lightning (its fault injection): these act on every SMTP connection.
    icon("plug"),
  );

  mount(root: HTMLElement, params: string[]) {
    this.root = root;
    const search = h("input.search", {
      type: "search",
      placeholder: "Search inboxes  ( / )",
      "aria-label": "Search inboxes",
      oninput: () => {
        this.filter = search.value.trim().toLowerCase();
        this.renderInboxes();
      },
    });
    replace(
      this.inboxPane,
      h(
        "div.pane-head",
        null,
        h("div.pane-title", null, h("h2", null, "Inboxes"), this.countEl),
        this.faultsButton,
        h(
          "button.btn.primary",
          { onclick: () => void this.create(), dataset: { test: "new-inbox" } },
          icon("plus"),
          h("span", null, "New inbox"),
        ),
      ),
      h("div.pane-search", null, icon("search", 14), search),
      this.listEl,
    );
    replace(this.layout, this.inboxPane, this.messagePane, this.readerPane);
    root.appendChild(this.layout);

    const refreshInboxes = debounce(() => void this.loadInboxes(), 250);
    this.cleanups.push(
      onLive((e) => {
        if (e.type === "poll" || e.type.startsWith("message.") || e.type.startsWith("inbox.")) refreshInboxes();
        // The open inbox was deleted elsewhere (the API, a CI job, its expiry): leave it rather than show a ghost.
        if ((e.type === "inbox.deleted" || e.type === "inbox.expired") && e.data?.data?.inbox_id === this.inboxId && this.inboxId) {
          toast("This inbox was deleted elsewhere");
          location.hash = "/inboxes";
        }
      }),
    );
    // Inboxes created elsewhere (API, CI) show up when the reader comes back to the tab.
    const onFocus = () => document.visibilityState === "visible" && refreshInboxes();
    document.addEventListener("visibilitychange", onFocus);
    window.addEventListener("focus", onFocus);
    this.cleanups.push(() => {
      document.removeEventListener("visibilitychange", onFocus);
      window.removeEventListener("focus", onFocus);
    });
    const tick = setInterval(() => {
      for (const el of this.root.querySelectorAll<HTMLElement>("[data-expires]")) {
        const cd = el.querySelector(".cd");
        if (cd) cd.textContent = countdown(el.dataset.expires);
      }
    }, 1000);
    this.cleanups.push(() => clearInterval(tick));
    this.cleanups.push(
      pushKeys({
        rows: () => (this.inboxId ? (this.messages?.rows() ?? []) : this.rowEls()),
        selected: () => (this.inboxId ? (this.messages?.selected ?? -1) : this.selectedInbox),
        select: (i) => (this.inboxId ? this.messages?.select(i) : this.selectInbox(i)),
        open: (i) => (this.inboxId ? this.messages?.open(i) : this.openInbox(i)),
        remove: (i) => (this.inboxId ? void this.messages?.remove(i) : void this.removeInbox(this.visible()[i])),
        back: () => {
          if (this.messageId) location.hash = `/inboxes/${this.inboxId}`;
          else if (this.inboxId) location.hash = "/inboxes";
        },
      }),
    );
    this.update(params);
    void this.loadInboxes();
    void loadSmtpChaos().then((rules) => this.showConnectionFaults(rules));
  }

  private showConnectionFaults(rules: SmtpChaosRule[] | null) {
    const b = this.faultsButton;
    b.classList.toggle("hidden", rules === null);
    b.classList.toggle("on", !!rules?.length);
    b.setAttribute("aria-pressed", String(!!rules?.length));
    b.title = rules?.length
      ? `Connection faults on: ${rules.length} rule${rules.length === 1 ? "" : "s"} (every project)`
      : "Connection faults: make new SMTP connections slow or refused (instance-wide)";
  }

  private async editConnectionFaults() {
    const rules = await smtpChaosDialog();
    if (rules !== null) this.showConnectionFaults(rules);
  }

  unmount() {
    for (const c of this.cleanups) c();
    this.messages?.destroy();
    this.reader?.destroy();
  }

  update(params: string[]) {
    const [inboxId = null, messageId = null] = params;
    const inboxChanged = inboxId !== this.inboxId;
    this.inboxId = inboxId;
    this.messageId = messageId;
    this.layout.dataset.depth = messageId ? "2" : inboxId ? "1" : "0";
    if (inboxChanged) {
      this.messages?.destroy();
      this.messages = null;
      if (inboxId) {
        this.messages = new MessageList(this.messagePane, inboxId, () => this.inboxes.find((i) => i.id === inboxId) ?? null, {
          onInboxChanged: () => void this.loadInboxes(),
          onDeleteInbox: (ib) => void this.removeInbox(ib),
          onToggleWatch: (ib) => void this.toggleWatch(ib),
        });
      } else {
        replace(
          this.messagePane,
          empty("Select an inbox", "Pick an inbox on the left, or create a disposable one for your next test run.", "mail"),
        );
      }
    }
    this.messages?.setOpen(messageId);
    if (messageId !== this.reader?.messageId) {
      this.reader?.destroy();
      this.reader = null;
      if (messageId && inboxId)
        this.reader = new Reader(this.readerPane, messageId, inboxId, (read) => {
          if (read) this.messages?.noteRead(read.id, read.read);
          void this.messages?.reload();
          void this.loadInboxes();
        });
      else
        replace(
          this.readerPane,
          empty(
            inboxId ? "No message selected" : "inboxd",
            inboxId
              ? "Choose a message to read it. Keys: j / k to move, Enter to open, Delete to remove."
              : "Create an inbox, send it mail, and read it here as it arrives.",
            "mailOpen",
          ),
        );
    }
    this.renderInboxes();
  }

  private visible(): Inbox[] {
    if (!this.filter) return this.inboxes;
    return this.inboxes.filter((i) => i.address.toLowerCase().includes(this.filter) || (i.name ?? "").toLowerCase().includes(this.filter));
  }

  private rowEls(): HTMLElement[] {
    return [...this.listEl.querySelectorAll<HTMLElement>(".inbox-row")];
  }

  private selectInbox(i: number) {
    this.selectedInbox = i;
    this.rowEls().forEach((r, j) => r.classList.toggle("selected", j === i));
    reveal(this.rowEls()[i]);
  }

  private openInbox(i: number) {
    const ib = this.visible()[i];
    if (ib) location.hash = `/inboxes/${ib.id}`;
  }

  async loadInboxes(more = false) {
    try {
      const r = await list<Inbox>(`/v1/inboxes?limit=100${more && this.inboxNext ? `&cursor=${this.inboxNext}` : ""}`);
      // The catch-all inbox (mail to any address no inbox has) leads the list: it is where a new user's mail lands.
      const all = more ? [...this.inboxes, ...r.data] : r.data;
      this.inboxes = [...all.filter((i) => i.type === "catch_all"), ...all.filter((i) => i.type !== "catch_all")];
      this.inboxNext = r.links.next;
      this.inboxError = null;
    } catch (e) {
      this.inboxError = describe(e);
    }
    this.loaded = true;
    this.renderInboxes();
    this.messages?.inboxUpdated();
  }

  private renderInboxes() {
    if (!this.loaded) {
      replace(this.listEl, spinner());
      return;
    }
    const rows = this.visible();
    this.countEl.textContent = this.inboxes.length ? String(this.inboxes.length) + (this.inboxNext ? "+" : "") : "";
    if (this.inboxError) {
      replace(this.listEl, empty("Could not load inboxes", this.inboxError, "inbox"));
      return;
    }
    if (!rows.length) {
      replace(
        this.listEl,
        this.filter
          ? empty("No match", `No inbox address or name contains “${this.filter}”.`, "search")
          : h(
              "div",
              null,
              empty("No inboxes yet", "A disposable inbox gets a fresh address and removes itself when its time is up.", "inbox"),
              h("div.center", null, h("button.btn.primary", { onclick: () => void this.create() }, icon("plus"), "Create an inbox")),
            ),
      );
      return;
    }
    const sel = this.inboxId ? rows.findIndex((r) => r.id === this.inboxId) : this.selectedInbox;
    replace(
      this.listEl,
      rows.map((ib, i) => this.inboxRow(ib, i === sel, ib.id === this.inboxId)),
      this.inboxNext && !this.filter
        ? h("button.btn.link.more", { onclick: () => void this.loadInboxes(true) }, "Load more inboxes")
        : null,
    );
    if (this.inboxId && sel >= 0) this.selectedInbox = sel;
  }

  private inboxRow(ib: Inbox, selected: boolean, active: boolean): HTMLElement {
    const stop = (fn: () => void) => (e: Event) => {
      e.stopPropagation();
      e.preventDefault();
      fn();
    };
    return h(
      "div.inbox-row",
      {
        role: "option",
        tabindex: 0,
        "aria-selected": String(active),
        class: [selected ? "selected" : "", active ? "active" : ""].join(" "),
        dataset: { id: ib.id, address: ib.address, test: "inbox-row" },
        onclick: () => (location.hash = `/inboxes/${ib.id}`),
        onkeydown: (e: KeyboardEvent) => {
          if (e.key === "Enter" && e.target === e.currentTarget) location.hash = `/inboxes/${ib.id}`;
        },
      },
      h(
        "div.row-top",
        null,
        h("span.address", { title: ib.address }, ib.address),
        ib.unread_count ? h("span.badge.unread", { title: `${ib.unread_count} unread` }, String(ib.unread_count)) : null,
      ),
      h(
        "div.row-meta",
        null,
        ib.name ? h("span.name", null, ib.name) : null,
        ib.type === "catch_all" ? h("span.chip", { title: "Mail to any address no inbox has lands here" }, "catch-all") : null,
        h("span.muted", null, `${ib.message_count} message${ib.message_count === 1 ? "" : "s"}`),
        expiryChip(ib.expires_at),
        ib.status && ib.status !== "active" ? h("span.chip.warn", null, ib.status) : null,
      ),
      h(
        "div.row-bottom",
        null,
        storageBar(ib.storage?.inbox),
        h(
          "div.row-actions",
          null,
          iconButton(
            "Copy address",
            "copy",
            stop(() => void copyText(ib.address, "Address copied")),
            { small: true, test: "copy-address" },
          ),
          iconButton(
            ib.watched ? "Unwatch" : "Watch",
            ib.watched ? "eye" : "eyeOff",
            stop(() => void this.toggleWatch(ib)),
            {
              small: true,
              test: "watch",
              pressed: ib.watched,
              title: ib.watched ? "Watching: alerts on arrival and expiry. Click to stop." : "Watch: get alerts for this inbox",
            },
          ),
          // The catch-all inbox stays (the server refuses with 409); its messages can go one by one.
          ib.type === "catch_all"
            ? null
            : iconButton(
                "Delete inbox",
                "trash",
                stop(() => void this.removeInbox(ib)),
                { small: true, danger: true, test: "delete-inbox" },
              ),
        ),
      ),
    );
  }

  private async create() {
    const name = h("input", { name: "name", maxLength: 100, placeholder: "e.g. signup flow" });
    const local = h("input", { name: "local_part", maxLength: 64, placeholder: "generated when empty", pattern: "[A-Za-z0-9._+\\-]*" });
    const ttl = h(
      "select",
      { name: "ttl" },
      TTLS.map(([label, v]) => h("option", { value: String(v), selected: v === 3600 }, label)),
    );
    const watch = h("input", { type: "checkbox", name: "watch", checked: true });
    let created: Inbox | null = null;
    const v = await dialog<{ name: string; local: string; ttl: number; watch: boolean }>(
      "New disposable inbox",
      h(
        "div.form-grid",
        null,
        h("label", null, "Name (optional)", name),
        h("label", null, "Address local part (optional)", local),
        h("label", null, "Lifetime", ttl),
        h("label.check", null, watch, "Watch it: alert me when mail arrives"),
      ),
      {
        submit: "Create inbox",
        collect: () => ({ name: name.value.trim(), local: local.value.trim(), ttl: Number(ttl.value), watch: watch.checked }),
        apply: async (v) => {
          const body: Record<string, unknown> = { ttl_seconds: v.ttl, watch: v.watch };
          if (v.name) body.name = v.name;
          if (v.local) body.local_part = v.local;
          try {
            created = (await api<{ data: Inbox }>("/v1/inboxes", { method: "POST", json: body, idempotent: true })).data;
          } catch (e) {
            if (e instanceof ApiFailure && e.code === "address_taken") throw new FieldError("That address is already taken.", local);
            throw new Error(`Could not create the inbox: ${describe(e)}`, { cause: e });
          }
        },
      },
    );
    if (!v || !created) return;
    const ib: Inbox = created;
    this.inboxes = [ib, ...this.inboxes.filter((i) => i.id !== ib.id)];
    toast(`Created ${ib.address}`, "ok");
    location.hash = `/inboxes/${ib.id}`;
    void this.loadInboxes();
  }

  async toggleWatch(ib: Inbox) {
    try {
      await api(`/v1/inboxes/${ib.id}/watch`, { method: ib.watched ? "DELETE" : "PUT" });
      ib.watched = !ib.watched;
      toast(ib.watched ? `Watching ${ib.address}` : `Stopped watching ${ib.address}`, "ok");
      this.renderInboxes();
      this.messages?.inboxUpdated();
    } catch (e) {
      toast(`Could not change the watch: ${describe(e)}`, "error");
    }
  }

  async removeInbox(ib: Inbox | undefined) {
    if (!ib) return;
    if (ib.type === "catch_all") {
      toast("The catch-all inbox stays (INBOXD_CATCH_ALL=off turns capture off); empty it from its trash button instead");
      return;
    }
    if (!(await confirmDialog("Delete inbox?", `${ib.address} and its ${ib.message_count} message(s) will be removed for good.`))) return;
    try {
      await api(`/v1/inboxes/${ib.id}`, { method: "DELETE" });
      this.inboxes = this.inboxes.filter((i) => i.id !== ib.id);
      toast(`Deleted ${ib.address}`, "ok");
      if (this.inboxId === ib.id) location.hash = "/inboxes";
      this.renderInboxes();
    } catch (e) {
      toast(`Could not delete: ${describe(e)}`, "error");
    }
  }
}
