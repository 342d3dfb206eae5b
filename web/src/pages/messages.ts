// The message list of one inbox (GET /v1/inboxes/{id}/messages), refetched on live events. The
// search box above it sends `q` (docs/search.md; a 422 shows its reason inline), and an .eml file
// dropped on the list, or picked with "Import .eml", is imported (POST …/messages, message/rfc822).
import { api, ApiFailure, describe, list } from "../api";
import { confirmDialog, copyText, dialog, empty, iconButton, fmtBytes, h, icon, replace, shortTime, spinner, toast } from "../dom";
import { reveal } from "../keys";
import { debounce, onLive } from "../live";
import { expiryChip, storageBar, type Inbox } from "./mail";
import { chaosDialog, loadChaos, type ChaosRule } from "./chaos";

export interface MessageSummary {
  id: string;
  inbox_id: string;
  from: { email: string; name: string } | null;
  subject: string;
  preview: string;
  codes: string[];
  links_count: number;
  attachment_count: number;
  has_text: boolean;
  has_html: boolean;
  size_bytes: number;
  received_at: string;
  expires_at: string;
  read: boolean;
}

interface Hooks {
  onInboxChanged(): void;
  onDeleteInbox(ib: Inbox): void;
  onToggleWatch(ib: Inbox): void;
}

export class MessageList {
  private items: MessageSummary[] = [];
  private next: string | null = null;
  private error: string | null = null;
  private loaded = false;
  private openId: string | null = null;
  /** The keyboard selection, kept by id so that arrivals above it do not move it. */
  private selectedId: string | null = null;
  get selected(): number {
    return this.selectedId ? this.items.findIndex((m) => m.id === this.selectedId) : -1;
  }
  private head = h("div.pane-head.inbox-head");
  /** The search of the list (q), as typed; "" lists everything. */
  private q = "";
  /** Why the server refused q (422), shown under the search box. */
  private searchError: string | null = null;
  /** Answers to older queries that arrive late are dropped. */
  private seq = 0;
  private searchInput = h("input.search", {
    type: "search",
    placeholder: 'Search messages: words, from:, subject:"…", has:code',
    "aria-label": "Search messages",
    maxLength: 1000,
    dataset: { test: "message-search" },
  });
  private searchErrorEl = h("div.search-error", { role: "alert", dataset: { test: "search-error" }, hidden: true });
  private fileInput = h("input", {
    type: "file",
    accept: ".eml,message/rfc822",
    multiple: true,
    hidden: true,
    dataset: { test: "import-file" },
  });
  private listEl = h("div.rows", { role: "listbox", "aria-label": "Messages", dataset: { test: "message-list" } });
  private off: () => void;
  private fresh = new Set<string>();
  /** The inbox's fault-injection rules (null: unknown), shown as the state of the head's button. */
  private chaos: ChaosRule[] | null = null;

  constructor(
    pane: HTMLElement,
    private inboxId: string,
    private inbox: () => Inbox | null,
    private hooks: Hooks,
  ) {
    replace(
      pane,
      this.head,
      h("div.pane-search", null, icon("search", 14), this.searchInput),
      this.searchErrorEl,
      this.listEl,
      this.fileInput,
    );
    const search = debounce(() => {
      if (this.searchInput.value.trim() === this.q) return;
      this.q = this.searchInput.value.trim();
      this.items = []; // another query: nothing of the last one's pages stays
      void this.reload();
    }, 250);
    this.searchInput.addEventListener("input", search);
    this.fileInput.addEventListener("change", () => {
      const files = [...(this.fileInput.files ?? [])];
      this.fileInput.value = "";
      void this.importFiles(files);
    });
    // Drop .eml files anywhere on the message list.
    pane.addEventListener("dragover", (e) => {
      if (![...(e.dataTransfer?.types ?? [])].includes("Files")) return;
      e.preventDefault();
      pane.classList.add("drop-target");
    });
    pane.addEventListener("dragleave", (e) => {
      if (e.target === pane || !pane.contains(e.relatedTarget as Node | null)) pane.classList.remove("drop-target");
    });
    pane.addEventListener("drop", (e) => {
      if (!e.dataTransfer?.files.length) return;
      e.preventDefault();
      pane.classList.remove("drop-target");
      void this.importFiles([...e.dataTransfer.files]);
    });
    this.renderHead();
    this.render();
    const again = debounce(() => void this.reload(), 120);
    this.off = onLive((e) => {
      if (e.type === "poll") return again();
      if (!e.type.startsWith("message.") && !e.type.startsWith("inbox.")) return;
      const d = e.data ?? {};
      // A deleted message leaves at once, from an older page too (a refresh reads only the newest).
      if (e.type === "message.deleted") this.items = this.items.filter((m) => m.id !== d.data?.id);
      const ib = d.inbox_id ?? d.inboxId ?? d.inbox?.id ?? d.data?.inbox_id ?? d.message?.inbox_id ?? d.data?.inbox?.id;
      if (!ib || ib === this.inboxId) again();
    });
    void this.reload();
    void loadChaos(inboxId).then((rules) => {
      this.chaos = rules;
      this.renderHead();
    });
  }

  destroy() {
    this.off();
  }

  rows(): HTMLElement[] {
    return [...this.listEl.querySelectorAll<HTMLElement>(".msg-row")];
  }

  select(i: number) {
    this.selectedId = this.items[i]?.id ?? null;
    this.rows().forEach((r, j) => r.classList.toggle("selected", j === i));
    reveal(this.rows()[i]);
  }

  open(i: number) {
    const m = this.items[i];
    if (m) location.hash = `/inboxes/${this.inboxId}/${m.id}`;
  }

  /** The open message's read flag as the reader last set it; null: read (opening marks it so). */
  private openRead: boolean | null = null;

  /** The reader set a message's read flag: the list shows it so, also while a reload is on its way. */
  noteRead(id: string, read: boolean) {
    if (id === this.openId) this.openRead = read;
    const m = this.items.find((x) => x.id === id);
    if (m) m.read = read;
    this.render();
  }

  setOpen(id: string | null) {
    if (id !== this.openId) this.openRead = null;
    this.openId = id;
    const i = id ? this.items.findIndex((m) => m.id === id) : -1;
    if (i >= 0) {
      this.selectedId = id;
      this.items[i]!.read = this.openRead ?? true;
    }
    this.render();
  }

  inboxUpdated() {
    this.renderHead();
  }

  async remove(i: number) {
    const m = this.items[i];
    if (!m) return;
    try {
      await api(`/v1/messages/${m.id}`, { method: "DELETE" });
      this.items.splice(i, 1);
      toast("Message deleted", "ok");
      if (this.openId === m.id) {
        const nextMsg = this.items[Math.min(i, this.items.length - 1)];
        location.hash = nextMsg ? `/inboxes/${this.inboxId}/${nextMsg.id}` : `/inboxes/${this.inboxId}`;
      }
      this.selectedId = this.items[Math.min(i, this.items.length - 1)]?.id ?? null;
      this.render();
      this.hooks.onInboxChanged();
    } catch (e) {
      toast(`Could not delete: ${describe(e)}`, "error");
    }
  }

  /** Marks every message of the inbox read (POST /v1/inboxes/{id}/mark-read). */
  async markAllRead(ib: Inbox) {
    try {
      // The largest id there is: every message up to now (ids sort by arrival).
      await api(`/v1/inboxes/${ib.id}/mark-read`, { method: "POST", json: { last_read_ulid: "7ZZZZZZZZZZZZZZZZZZZZZZZZZ" } });
      // The older pages a refresh keeps are not read again: they are read now too.
      for (const m of this.items) m.read = true;
      await this.reload();
      this.hooks.onInboxChanged();
    } catch (e) {
      toast(`Could not mark read: ${describe(e)}`, "error");
    }
  }

  /** Empties the inbox (DELETE /v1/inboxes/{id}/messages), after asking. */
  async removeAll(ib: Inbox) {
    if (!(await confirmDialog("Delete all messages?", `Every message of ${ib.address} will be removed for good.`))) return;
    try {
      await api(`/v1/inboxes/${ib.id}/messages`, { method: "DELETE" });
      toast("Messages deleted", "ok");
      location.hash = `/inboxes/${ib.id}`;
      await this.reload();
      this.hooks.onInboxChanged();
    } catch (e) {
      toast(`Could not delete: ${describe(e)}`, "error");
    }
  }

  /** Imports .eml files (POST /v1/inboxes/{id}/messages, message/rfc822: stored byte for byte); opens the last one. */
  async importFiles(picked: File[]) {
    // What is plainly no mail (an image, a PDF, an archive) is not imported as one; the server takes any
    // bytes as a message, as an MTA would, so the choice is made here, where the file type is known.
    const files = picked.filter((f) => !/^(image|video|audio|font)\/|^application\/(pdf|zip|gzip|x-tar|x-7z)/.test(f.type));
    for (const f of picked) if (!files.includes(f)) toast(`${f.name} is not an email (.eml): not imported`, "error");
    let last: string | null = null;
    let done = 0;
    for (const f of files) {
      try {
        const r = await api(`/v1/inboxes/${this.inboxId}/messages`, {
          method: "POST",
          raw: { body: await f.arrayBuffer(), type: "message/rfc822" },
          idempotent: true,
        });
        last = r.data.id;
        done++;
      } catch (e) {
        toast(`Could not import ${f.name}: ${describe(e)}`, "error");
      }
    }
    if (!done) return;
    toast(done === 1 ? `Imported ${files.length === 1 ? files[0]!.name : "1 message"}` : `Imported ${done} messages`, "ok");
    await this.reload();
    this.hooks.onInboxChanged();
    if (last) location.hash = `/inboxes/${this.inboxId}/${last}`;
  }

  async reload(more = false) {
    const seq = ++this.seq;
    const q = this.q;
    try {
      const r = await list<MessageSummary>(
        `/v1/inboxes/${this.inboxId}/messages?limit=50${q ? `&q=${encodeURIComponent(q)}` : ""}${more && this.next ? `&cursor=${this.next}` : ""}`,
      );
      if (seq !== this.seq) return;
      if (!more && this.loaded) for (const m of r.data) if (!this.items.some((x) => x.id === m.id)) this.fresh.add(m.id);
      if (more) {
        this.items = [...this.items, ...r.data];
        this.next = r.links.next;
      } else {
        // A refresh reads the newest page; older pages the user loaded stay below it (ids sort by
        // arrival), so new mail does not cut the list back to 50 rows.
        const last = r.data.at(-1)?.id;
        const older = r.links.next && last ? this.items.filter((x) => x.id < last) : [];
        this.items = [...r.data, ...older];
        if (older.length === 0) this.next = r.links.next;
      }
      this.error = null;
      this.setSearchError(null);
    } catch (e) {
      if (seq !== this.seq) return;
      if (q && e instanceof ApiFailure && e.status === 422) {
        // The query does not parse: say why under the box and show no list for it.
        this.setSearchError(e.message);
        this.items = [];
        this.next = null;
        this.loaded = true;
        this.render();
        return;
      }
      this.error =
        e instanceof ApiFailure && e.routeMissing
          ? "Reading messages is not available on this server yet."
          : e instanceof ApiFailure && e.status === 404
            ? "This inbox no longer exists (deleted or expired)."
            : describe(e);
    }
    this.loaded = true;
    if (this.openId) {
      const m = this.items.find((x) => x.id === this.openId);
      // Opening marks it read, and the list may answer before that write: read unless the reader said otherwise.
      if (m) m.read = this.openRead ?? true;
      if (m && !this.selectedId) this.selectedId = m.id;
    }
    this.render();
  }

  private setSearchError(reason: string | null) {
    this.searchError = reason;
    this.searchErrorEl.hidden = reason === null;
    this.searchErrorEl.textContent = reason ?? "";
    this.searchInput.setAttribute("aria-invalid", String(reason !== null));
  }

  private renderHead() {
    const ib = this.inbox();
    if (!ib) {
      replace(
        this.head,
        h(
          "div.pane-title",
          null,
          h("a.back", { href: "#/inboxes", "aria-label": "Back to inboxes" }, icon("back")),
          h("h2", null, "Inbox"),
        ),
      );
      return;
    }
    replace(
      this.head,
      h(
        "div.inbox-title",
        null,
        h("a.back", { href: "#/inboxes", "aria-label": "Back to inboxes", title: "Back (Esc)" }, icon("back")),
        h(
          "div.inbox-id",
          null,
          h("h2.address", { title: ib.address, dataset: { test: "inbox-address" } }, ib.address),
          h(
            "div.row-meta",
            null,
            ib.name ? h("span.name", null, ib.name) : null,
            expiryChip(ib.expires_at),
            h("span.muted", null, `${ib.unread_count} unread of ${ib.message_count}`),
          ),
        ),
        h(
          "div.head-actions",
          null,
          iconButton("Copy address", "copy", () => void copyText(ib.address, "Address copied")),
          iconButton(ib.watched ? "Stop watching" : "Watch this inbox", ib.watched ? "eye" : "eyeOff", () => this.hooks.onToggleWatch(ib), {
            pressed: ib.watched,
          }),
          iconButton("IMAP and POP3 access", "key", () => void this.showCredentials(ib), { test: "credentials" }),
          iconButton("Fault injection", "zap", () => void this.editChaos(ib), {
            test: "chaos",
            pressed: !!this.chaos?.length,
            title: this.chaos?.length
              ? `Fault injection on: ${this.chaos.length} rule${this.chaos.length === 1 ? "" : "s"}`
              : "Fault injection: make mail to this inbox fail on purpose",
          }),
          iconButton("Import .eml", "upload", () => this.fileInput.click(), {
            test: "import-eml",
            title: "Import .eml files (or drop them on the list)",
          }),
          iconButton("Refresh", "refresh", () => void this.reload()),
          ib.unread_count ? iconButton("Mark all read", "mailOpen", () => void this.markAllRead(ib), { test: "mark-all-read" }) : null,
          // The catch-all inbox stays (the server refuses with 409): its trash empties it instead.
          ib.type === "catch_all"
            ? iconButton("Delete all messages", "trash", () => void this.removeAll(ib), { test: "delete-all", danger: true })
            : iconButton("Delete inbox", "trash", () => this.hooks.onDeleteInbox(ib), { danger: true }),
        ),
      ),
      ib.storage?.inbox ? h("div.inbox-storage", null, h("span.muted.small", null, "Storage"), storageBar(ib.storage.inbox, true)) : null,
    );
  }

  private async editChaos(ib: Inbox) {
    const rules = await chaosDialog(ib);
    if (rules === null) return;
    this.chaos = rules;
    this.renderHead();
  }

  /** IMAP/POP3 connection details for mail clients (GET /v1/inboxes/{id}/credentials). */
  private async showCredentials(ib: Inbox) {
    let c: { username: string; password: string; imap: { host: string; port: number }; pop3: { host: string; port: number } };
    try {
      c = (await api(`/v1/inboxes/${ib.id}/credentials`)).data;
    } catch (e) {
      toast(`Could not load the credentials: ${describe(e)}`, "error");
      return;
    }
    const line = (label: string, value: string, secret = false) =>
      h(
        "div.cred-row",
        null,
        h("span.muted", null, label),
        h("code", { dataset: { test: `cred-${label.toLowerCase()}` } }, secret ? "•".repeat(12) : value),
        iconButton(`Copy ${label.toLowerCase()}`, "copy", () => void copyText(value, `${label} copied`), { small: true }),
      );
    await dialog(
      "IMAP and POP3 access",
      h(
        "div.form-grid",
        null,
        h(
          "p.muted",
          null,
          "Read this inbox from any mail client or test library over TLS (the certificate is self-signed unless you configured one).",
        ),
        line("Username", c.username),
        line("Password", c.password, true),
        line("IMAP", `${c.imap.host}:${c.imap.port}`),
        line("POP3", `${c.pop3.host}:${c.pop3.port}`),
      ),
      { submit: "Done", noCancel: true },
    );
  }

  private render() {
    if (!this.loaded) return replace(this.listEl, spinner());
    if (this.error) return replace(this.listEl, empty("Messages unavailable", this.error, "mail"));
    const ib = this.inbox();
    if (this.searchError) return replace(this.listEl, empty("Invalid search", "Fix the query above (see docs/search.md).", "search"));
    if (!this.items.length && this.q) {
      return replace(this.listEl, empty("No match", `No message matches “${this.q}”.`, "search"));
    }
    if (!this.items.length) {
      return replace(
        this.listEl,
        h(
          "div.waiting",
          null,
          h("div.pulse"),
          h("strong", null, "Waiting for mail…"),
          h("p", null, "Messages appear here the moment they arrive. Drop an .eml file here to import it."),
          ib ? h("button.btn.code", { onclick: () => void copyText(ib.address, "Address copied") }, icon("copy", 14), ib.address) : null,
        ),
      );
    }
    // A redraw (new mail, a refresh) must not take the keyboard focus from the row that had it.
    const focused = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>(".msg-row")?.dataset.id;
    replace(
      this.listEl,
      this.items.map((m) => this.row(m)),
      this.next ? h("button.btn.link.more", { onclick: () => void this.reload(true) }, "Load older messages") : null,
    );
    if (focused) this.listEl.querySelector<HTMLElement>(`.msg-row[data-id="${focused}"]`)?.focus({ preventScroll: true });
    this.fresh.clear();
  }

  private row(m: MessageSummary): HTMLElement {
    const from = m.from?.name || m.from?.email || "(unknown sender)";
    return h(
      "a.msg-row",
      {
        href: `#/inboxes/${this.inboxId}/${m.id}`,
        role: "option",
        "aria-selected": String(m.id === this.openId),
        class: [
          m.read ? "read" : "unread",
          m.id === this.selectedId ? "selected" : "",
          m.id === this.openId ? "active" : "",
          this.fresh.has(m.id) ? "fresh" : "",
        ].join(" "),
        dataset: { id: m.id, test: "message-row" },
      },
      h("span.dot", { title: m.read ? "read" : "unread" }),
      h(
        "div.msg-main",
        null,
        h(
          "div.msg-top",
          null,
          h("span.from", { title: m.from?.email ?? "" }, from),
          h("time", { datetime: m.received_at, title: new Date(m.received_at).toLocaleString() }, shortTime(m.received_at)),
        ),
        h("div.subject", null, m.subject || "(no subject)"),
        h("div.preview", null, m.preview || ""),
        m.codes?.length || m.attachment_count
          ? h(
              "div.msg-chips",
              null,
              (m.codes ?? []).slice(0, 3).map((c) => h("span.chip.code", { title: "Verification code" }, c)),
              m.attachment_count
                ? h("span.chip", { title: `${m.attachment_count} attachment(s)` }, icon("clip", 12), String(m.attachment_count))
                : null,
              h("span.muted.small", null, fmtBytes(m.size_bytes)),
            )
          : null,
      ),
    );
  }
}
