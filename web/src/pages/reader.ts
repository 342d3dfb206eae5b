// One message: sanitized HTML in a sandboxed iframe (no scripts, remote content blocked until the
// reader asks for it), checks of the mail (pages/checks.ts), text, headers (projected/full), raw
// source, links, codes, attachments.
import { api, ApiFailure, describe, fetchBlob } from "../api";
import { confirmDialog, copyText, empty, fmtBytes, fullTime, h, icon, iconButton, replace, saveBlob, spinner, toast } from "../dom";
import { onLive } from "../live";
import { checksView } from "./checks";

type Tab = "html" | "checks" | "text" | "headers" | "raw" | "links" | "attachments";

interface Attachment {
  id: string;
  filename?: string | null;
  name?: string | null;
  content_type?: string;
  declared_content_type?: string;
  served_content_type?: string;
  content_id?: string | null;
  size_bytes?: number;
  size?: number;
}

/** Header list in any of the shapes a server may use: {name: value|value[]}, [{name,value}], [[name,value]]. */
function headerPairs(hd: unknown): [string, string][] {
  if (!hd) return [];
  if (Array.isArray(hd)) {
    return hd.map((x: any) => (Array.isArray(x) ? [String(x[0]), String(x[1])] : [String(x.name ?? x.key ?? ""), String(x.value ?? "")]));
  }
  if (typeof hd === "object") {
    const out: [string, string][] = [];
    for (const [k, v] of Object.entries(hd as Record<string, unknown>)) {
      if (Array.isArray(v)) for (const x of v) out.push([k, typeof x === "string" ? x : JSON.stringify(x)]);
      else out.push([k, typeof v === "string" ? v : JSON.stringify(v)]);
    }
    return out;
  }
  return [];
}

function linkList(m: any): { url: string; text?: string }[] {
  const raw = m.links ?? m.body?.links ?? [];
  if (!Array.isArray(raw)) return [];
  return raw
    .map((l: any) => (typeof l === "string" ? { url: l } : { url: String(l.url ?? l.href ?? ""), text: l.text ?? l.label }))
    .filter((l) => l.url);
}

/** "Name <a@b>, c@d" from a string or a list of {email, name}. */
function addrList(v: unknown): string {
  if (!v) return "";
  if (typeof v === "string") return v;
  if (!Array.isArray(v)) return "";
  return v
    .map((a: any) => (typeof a === "string" ? a : a?.name ? `${a.name} <${a.email}>` : String(a?.email ?? a?.address ?? "")))
    .filter(Boolean)
    .join(", ");
}

/** The document shown in the iframe: links open in a new tab and send no referrer. */
export function frameDoc(html: string): string {
  return `<!doctype html><meta charset="utf-8"><base target="_blank"><meta name="referrer" content="no-referrer"><style>html{background:#fff;color:#1f2328}body{margin:16px;font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;overflow-wrap:anywhere}img{max-width:100%;height:auto}img[data-blocked-src]{max-height:24px;outline:1px dashed #d0d7de}</style>${html}`;
}

/**
 * The HTML with each `cid:` image (multipart/related) replaced by its part, fetched with the
 * session's key, as mail clients show inline images. As a data: URL: the sandboxed frame has an
 * opaque origin, which a blob: URL of this page's origin would not load in.
 */
async function withInlineImages(html: string, m: any): Promise<string> {
  const parts = new Map<string, string>();
  for (const a of m.attachments ?? []) if (a.content_id) parts.set(cidKey(bareCid(a.content_id)), a.id);
  const wanted = new Set([...html.matchAll(/\bsrc=(["'])cid:([^"']+)\1/gi)].map((x) => cidKey(x[2]!)));
  const found = new Map<string, string>();
  await Promise.all(
    [...wanted].map(async (cid) => {
      const id = parts.get(cid);
      if (!id) return;
      try {
        found.set(cid, await dataUrlOf(await fetchBlob(`/v1/messages/${m.id}/attachments/${id}`)));
      } catch {
        // Left as cid: (a broken image), as when the part is missing.
      }
    }),
  );
  return html.replace(/\bsrc=(["'])cid:([^"']+)\1/gi, (all, q, cid) => {
    const url = found.get(cidKey(cid));
    return url ? `src=${q}${url}${q}` : all;
  });
}

/**
 * Text with its http(s) URLs as links that open in a new tab without a referrer, as Mailpit's text view
 * has them; the text stays text (no HTML is read from it).
 */
function linkified(text: string): (string | HTMLElement)[] {
  const out: (string | HTMLElement)[] = [];
  let at = 0;
  for (const m of text.matchAll(/https?:\/\/[^\s<>"']+/g)) {
    // A sentence's closing punctuation is not part of the URL.
    const url = m[0].replace(/[.,;:!?)\]]+$/, "");
    out.push(text.slice(at, m.index), h("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, url));
    at = m.index! + url.length;
  }
  out.push(text.slice(at));
  return out;
}

/** A part's Content-ID without the angle brackets its header may keep. */
const bareCid = (id: string) => id.replace(/^<|>$/g, "");

/** A Content-ID as `cid:` URLs and headers write it, compared without case. */
function cidKey(s: string): string {
  try {
    return decodeURIComponent(s).toLowerCase();
  } catch {
    return s.toLowerCase();
  }
}

function dataUrlOf(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result));
    r.onerror = () => reject(r.error);
    r.readAsDataURL(blob);
  });
}

export class Reader {
  private msg: any = null;
  private tab: Tab = "html";
  private headersMode: "projected" | "full" = "projected";
  private fullHeaders: unknown = null;
  private fullTruncated = false;
  private remote: "strip" | "allow" = "strip";
  private htmlResult: { html: string; remote_blocked: number; truncated: boolean } | null = null;
  private raw: string | null = null;
  private body = h("div.reader-body");
  private readToggle = h("button.btn.sm", { onclick: () => void this.setRead(!this.msg.read), dataset: { test: "toggle-read" } });
  private off: () => void;
  private gone = false;
  private static flagRouteMissing = false;

  constructor(
    private pane: HTMLElement,
    readonly messageId: string,
    private inboxId: string,
    /** After a change; with `read` when the read flag was set (mark read / unread). */
    private onChanged: (read?: { id: string; read: boolean }) => void,
  ) {
    replace(pane, spinner("Opening message…"));
    this.off = onLive((e) => {
      const d = e.data ?? {};
      if (e.type === "message.deleted" && [d.message_id, d.id, d.data?.id, d.data?.message_id].includes(messageId)) {
        this.gone = true;
        replace(this.pane, empty("Message deleted", "This message was deleted elsewhere.", "trash"));
      }
    });
    void this.load();
  }

  destroy() {
    this.off();
  }

  private async load() {
    try {
      const r = await api(`/v1/messages/${this.messageId}`);
      if (this.gone) return;
      this.msg = r.data;
    } catch (e) {
      replace(
        this.pane,
        e instanceof ApiFailure && e.status === 404 && !e.routeMissing
          ? empty("Message not found", "It was deleted or has expired.", "mail")
          : empty("Could not open the message", describe(e), "mail"),
      );
      return;
    }
    this.tab = this.msg.has_html ? "html" : "text";
    this.render();
    if (!this.msg.read) void this.setRead(true, true);
  }

  private async setRead(read: boolean, quiet = false) {
    const m = this.msg;
    try {
      if (Reader.flagRouteMissing) throw new ApiFailure(405, "method_not_allowed", "no route");
      await api(`/v1/messages/${m.id}`, { method: "PATCH", json: { read } });
    } catch (e) {
      if (!(e instanceof ApiFailure && e.routeMissing)) {
        if (!quiet) toast(`Could not change the read flag: ${describe(e)}`, "error");
        return;
      }
      Reader.flagRouteMissing = true;
      if (!read || quiet) {
        if (!quiet) toast("This server cannot mark a single message unread yet.", "error");
        return;
      }
      // Fallback: the inbox mark-read operation (everything up to this message).
      try {
        await api(`/v1/inboxes/${this.inboxId}/mark-read`, { method: "POST", json: { last_read_ulid: m.id } });
      } catch (e2) {
        toast(`Could not mark read: ${describe(e2)}`, "error");
        return;
      }
    }
    m.read = read;
    if (!quiet) toast(read ? "Marked read" : "Marked unread", "ok");
    // Only the toggle: a whole render would rebuild the open tab, and with it a check the user
    // started (Check links) while the read flag was on its way when the message opened.
    this.showReadState();
    this.onChanged({ id: m.id, read });
  }

  private async remove() {
    if (!(await confirmDialog("Delete message?", `“${this.msg.subject || "(no subject)"}” will be removed for good.`))) return;
    try {
      await api(`/v1/messages/${this.msg.id}`, { method: "DELETE" });
      toast("Message deleted", "ok");
      this.onChanged();
      location.hash = `/inboxes/${this.inboxId}`;
    } catch (e) {
      toast(`Could not delete: ${describe(e)}`, "error");
    }
  }

  private async downloadRaw() {
    try {
      const blob = await fetchBlob(`/v1/messages/${this.msg.id}/raw`);
      // Letters and digits of any script stay (a German subject keeps its umlauts); the rest becomes "_".
      const base = (this.msg.subject || this.msg.id).replace(/[^\p{L}\p{N}.-]+/gu, "_").slice(0, 60) || this.msg.id;
      saveBlob(new Blob([blob], { type: "message/rfc822" }), `${base}.eml`);
    } catch (e) {
      toast(`Could not download the source: ${describe(e)}`, "error");
    }
  }

  private showReadState() {
    const read = !!this.msg.read;
    // The label stays when a narrow screen hides the text.
    this.readToggle.setAttribute("aria-label", read ? "Mark unread" : "Mark read");
    replace(this.readToggle, icon(read ? "mail" : "mailOpen", 14), h("span", null, read ? "Mark unread" : "Mark read"));
  }

  private render() {
    const m = this.msg;
    this.showReadState();
    const from = m.from ? (m.from.name ? `${m.from.name} <${m.from.email}>` : m.from.email) : "(unknown sender)";
    const hp = headerPairs(m.headers);
    const to = addrList(m.to) || hp.find(([k]) => k.toLowerCase() === "to")?.[1];
    const cc = addrList(m.cc);
    // Envelope recipients no header names (Bcc, or what the catch-all caught), as Mailpit shows Bcc.
    const headerAddresses = new Set([...(m.to ?? []), ...(m.cc ?? [])].map((a: any) => String(a?.email ?? "").toLowerCase()));
    const rcpt: string[] = Array.isArray(m.envelope?.rcpt_to) ? m.envelope.rcpt_to : [];
    const envelopeOnly = rcpt.some((a) => !headerAddresses.has(a.toLowerCase())) ? rcpt.join(", ") : "";
    const atts: Attachment[] = Array.isArray(m.attachments) ? m.attachments : [];
    const links = linkList(m);
    const tabs: [Tab, string, boolean][] = [
      ["html", "HTML", !!m.has_html],
      ["checks", "Checks", true],
      ["text", "Text", true],
      ["headers", "Headers", true],
      ["raw", "Source", m.raw_available !== false],
      ["links", `Links${m.links_count ? ` (${m.links_count})` : ""}`, true],
      ["attachments", `Attachments${m.attachment_count ? ` (${m.attachment_count})` : ""}`, true],
    ];
    replace(
      this.pane,
      h(
        "div.reader-toolbar",
        null,
        h("a.back", { href: `#/inboxes/${this.inboxId}`, "aria-label": "Back to messages", title: "Back (Esc)" }, icon("back")),
        h("div.spacer"),
        this.readToggle,
        h(
          "button.btn.sm",
          {
            onclick: () => void this.downloadRaw(),
            disabled: m.raw_available === false,
            title: "Download the message as .eml",
            "aria-label": "Download .eml",
          },
          icon("download", 14),
          h("span", null, ".eml"),
        ),
        h(
          "button.btn.sm.danger",
          { onclick: () => void this.remove(), "aria-label": "Delete message", dataset: { test: "delete-message" } },
          icon("trash", 14),
          h("span", null, "Delete"),
        ),
      ),
      h(
        "div.reader-head",
        null,
        h("h1.msg-subject", { dataset: { test: "message-subject" } }, m.subject || "(no subject)"),
        h(
          "dl.msg-meta",
          null,
          h("dt", null, "From"),
          h("dd", null, from),
          to ? [h("dt", null, "To"), h("dd", null, to)] : null,
          cc ? [h("dt", null, "Cc"), h("dd", null, cc)] : null,
          envelopeOnly
            ? [
                h("dt", { title: "SMTP RCPT TO: the addresses the message was delivered to, Bcc included" }, "Delivered to"),
                h("dd", { dataset: { test: "envelope-to" } }, envelopeOnly),
              ]
            : null,
          h("dt", null, "Received"),
          h("dd", null, fullTime(m.received_at), h("span.muted", null, ` · ${fmtBytes(m.size_bytes)}`)),
        ),
        m.codes?.length
          ? h(
              "div.codes",
              null,
              h("span.codes-label", null, m.codes.length > 1 ? "Verification codes" : "Verification code"),
              m.codes.map((c: string) =>
                h(
                  "button.code-btn",
                  { title: "Copy code", onclick: () => void copyText(c, "Code copied"), dataset: { test: "copy-code", code: c } },
                  h("span", null, c),
                  icon("copy", 14),
                ),
              ),
            )
          : null,
      ),
      h(
        "div.tabs",
        { role: "tablist" },
        tabs
          .filter(([, , show]) => show)
          .map(([id, label]) =>
            h(
              "button.tab",
              {
                role: "tab",
                "aria-selected": String(this.tab === id),
                class: this.tab === id ? "active" : "",
                dataset: { tab: id },
                onclick: () => this.show(id),
              },
              label,
            ),
          ),
      ),
      this.body,
    );
    this.renderTab(atts, links);
  }

  private show(t: Tab) {
    this.tab = t;
    this.render();
  }

  private renderTab(atts: Attachment[], links: { url: string; text?: string }[]) {
    const m = this.msg;
    switch (this.tab) {
      case "html":
        return void this.renderHtml();
      case "checks":
        return replace(this.body, checksView(m));
      case "text": {
        const text = m.text ?? m.text_body ?? m.body?.text ?? null;
        return replace(
          this.body,
          text
            ? h("pre.text-body", { dataset: { test: "text-body" } }, linkified(text))
            : empty("No text part", m.has_text ? "The text body is not in this view." : "This message has no plain-text body.", "mail"),
        );
      }
      case "headers":
        return void this.renderHeaders();
      case "raw":
        return void this.renderRaw();
      case "links":
        return replace(
          this.body,
          links.length
            ? h(
                "ul.link-list",
                null,
                links.map((l) =>
                  h(
                    "li",
                    null,
                    // Only web and mail links are clickable: a javascript: or data: URL from a mail stays text.
                    /^(https?:|mailto:)/i.test(l.url)
                      ? h("a", { href: l.url, target: "_blank", rel: "noopener noreferrer" }, l.url)
                      : h("span.link-text", { title: "not opened from here" }, l.url),
                    l.text && l.text !== l.url ? h("span.muted", null, l.text) : null,
                    iconButton("Copy link", "copy", () => void copyText(l.url, "Link copied"), { small: true }),
                  ),
                ),
              )
            : empty(
                "No links",
                m.links_count
                  ? `${m.links_count} link(s) were found, but this view does not list them.`
                  : "No links were found in this message.",
                "link",
              ),
        );
      case "attachments":
        return replace(
          this.body,
          atts.length
            ? h(
                "ul.att-list",
                null,
                atts.map((a) => {
                  // An inline part often has no file name (""): name it by its Content-ID, or its id.
                  const name = a.filename || a.name || (a.content_id ? bareCid(a.content_id) : `attachment-${a.id}`);
                  const type = a.content_type ?? a.declared_content_type ?? a.served_content_type ?? "application/octet-stream";
                  return h(
                    "li",
                    null,
                    icon("clip", 18),
                    h(
                      "div.att-name",
                      null,
                      h("strong", null, name),
                      h("span.muted.small", null, `${type} · ${fmtBytes(a.size_bytes ?? a.size)}`),
                    ),
                    h(
                      "button.btn.sm",
                      {
                        onclick: async () => {
                          try {
                            saveBlob(await fetchBlob(`/v1/messages/${m.id}/attachments/${a.id}`), name);
                          } catch (e) {
                            toast(`Download failed: ${describe(e)}`, "error");
                          }
                        },
                      },
                      icon("download", 14),
                      "Download",
                    ),
                  );
                }),
              )
            : empty("No attachments", undefined, "clip"),
        );
    }
  }

  private async renderHtml() {
    const m = this.msg;
    if (!this.htmlResult) {
      replace(this.body, spinner());
      try {
        const result = (await api(`/v1/messages/${m.id}/html?remote=${this.remote}`)).data;
        this.htmlResult = { ...result, html: await withInlineImages(result.html, m) };
      } catch (e) {
        replace(this.body, empty("HTML unavailable", describe(e), "mail"));
        return;
      }
      if (this.tab !== "html") return;
    }
    const r = this.htmlResult!;
    const frame = h("iframe.html-frame", {
      title: "Message HTML (sandboxed)",
      referrerpolicy: "no-referrer",
      dataset: { test: "html-frame" },
    });
    // No allow-scripts and no allow-same-origin: the mail can neither run code nor touch this page.
    frame.setAttribute("sandbox", "allow-popups allow-popups-to-escape-sandbox");
    frame.srcdoc = frameDoc(r.html);
    const notice =
      this.remote === "strip" && r.remote_blocked > 0
        ? h(
            "div.notice",
            { dataset: { test: "remote-notice" } },
            icon("shield", 16),
            h(
              "span",
              null,
              `${r.remote_blocked} remote resource${r.remote_blocked === 1 ? " was" : "s were"} blocked to protect your privacy.`,
            ),
            h(
              "button.btn.sm",
              {
                dataset: { test: "load-remote" },
                onclick: () => {
                  this.remote = "allow";
                  this.htmlResult = null;
                  void this.renderHtml();
                },
              },
              "Load remote content",
            ),
          )
        : this.remote === "allow"
          ? h("div.notice.info", null, icon("eye", 16), h("span", null, "Remote content is shown for this message."))
          : null;
    replace(this.body, notice, r.truncated ? h("div.notice.warn", null, "The HTML body is long and was truncated.") : null, frame);
  }

  private async renderHeaders() {
    const m = this.msg;
    let hd: unknown = m.headers;
    if (this.headersMode === "full") {
      if (!this.fullHeaders) {
        replace(this.body, spinner());
        try {
          const full = (await api(`/v1/messages/${m.id}?headers=full`)).data;
          this.fullHeaders = full.headers ?? null;
          this.fullTruncated = !!full.headers_truncated;
        } catch (e) {
          replace(this.body, empty("Headers unavailable", describe(e), "mail"));
          return;
        }
      }
      hd = this.fullHeaders;
    }
    const pairs = headerPairs(hd);
    const truncated = this.headersMode === "full" ? this.fullTruncated : !!m.headers_truncated;
    const seg = (mode: "projected" | "full", label: string) =>
      h(
        "button.seg",
        {
          class: this.headersMode === mode ? "active" : "",
          onclick: () => {
            this.headersMode = mode;
            void this.renderHeaders();
          },
        },
        label,
      );
    if (this.tab !== "headers") return;
    replace(
      this.body,
      h("div.segmented", null, seg("projected", "Main headers"), seg("full", "All headers")),
      truncated ? h("div.notice.warn", null, "The headers were long and are shown truncated; the Source tab has all of them.") : null,
      pairs.length
        ? h(
            "table.headers",
            null,
            h(
              "tbody",
              null,
              pairs.map(([k, v]) => h("tr", null, h("th", null, k), h("td", null, v))),
            ),
          )
        : empty("No headers", "This view carries no headers.", "mail"),
    );
  }

  private async renderRaw() {
    const m = this.msg;
    if (this.raw === null) {
      replace(this.body, spinner());
      try {
        const blob = await fetchBlob(`/v1/messages/${m.id}/raw`);
        const text = await blob.slice(0, 2 * 1024 * 1024).text();
        this.raw =
          blob.size > 2 * 1024 * 1024
            ? text + `\n\n… ${fmtBytes(blob.size - 2 * 1024 * 1024)} more; download the .eml for all of it.`
            : text;
      } catch (e) {
        replace(this.body, empty("Source unavailable", describe(e), "mail"));
        return;
      }
      if (this.tab !== "raw") return;
    }
    replace(
      this.body,
      h(
        "div.raw-actions",
        null,
        h("button.btn.sm", { onclick: () => void this.downloadRaw() }, icon("download", 14), "Download .eml"),
        h("button.btn.sm", { onclick: () => void copyText(this.raw ?? "", "Source copied") }, icon("copy", 14), "Copy"),
      ),
      h("pre.raw", { dataset: { test: "raw" } }, this.raw),
    );
  }
}
