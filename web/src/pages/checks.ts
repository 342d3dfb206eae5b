// The reader's "Checks" tab: the analyses of the mail itself (docs/analysis.md), one section each.
// A section is an entry of SECTIONS: a title and a render function given its own element; the
// HTML support and authentication show when the tab opens (local, or checked at receipt); the link
// check requests every URL and spam asks spamd, so those run on a button.
import { api, ApiFailure, describe } from "../api";
import { h, replace, spinner } from "../dom";

interface CheckSection {
  id: string;
  title: string;
  render(el: HTMLElement, message: { id: string; has_html?: boolean }): void;
}

const SECTIONS: CheckSection[] = [
  { id: "html", title: "HTML support in email clients", render: renderHtmlSupport },
  { id: "auth", title: "SPF, DKIM and DMARC", render: renderAuth },
  { id: "links", title: "Links and images", render: renderLinks },
  { id: "spam", title: "Spam score", render: renderSpam },
];

/** The Checks tab's content for a message: every section, each filling itself in. */
export function checksView(message: { id: string; has_html?: boolean }): HTMLElement {
  const root = h("div.checks", { dataset: { test: "checks" } });
  for (const s of SECTIONS) {
    const body = h("div.check-body");
    root.appendChild(h("section.check", { dataset: { check: s.id } }, h("h2.check-title", null, s.title), body));
    s.render(body, message);
  }
  return root;
}

/** A failure as the section shows it: the server's reason, with analysis_unavailable kept apart. */
function failure(e: unknown): HTMLElement {
  const unavailable = e instanceof ApiFailure && e.code === "analysis_unavailable";
  return h(
    "div.notice",
    { class: unavailable ? "info" : "bad", dataset: { test: unavailable ? "analysis-unavailable" : "check-error" } },
    h("span", null, unavailable ? `Not available on this server: ${(e as ApiFailure).message}` : describe(e)),
  );
}

const pct = (n: number) => `${Math.round(n * 10) / 10}%`;

function scoreBar(s: { supported: number; partial: number; unsupported: number }): HTMLElement {
  return h(
    "div.score-bar",
    { title: `${pct(s.supported)} supported, ${pct(s.partial)} partial, ${pct(s.unsupported)} not supported` },
    h("span.ok", { style: `width:${s.supported}%` }),
    h("span.partial", { style: `width:${s.partial}%` }),
    h("span.no", { style: `width:${s.unsupported}%` }),
  );
}

function renderHtmlSupport(el: HTMLElement, message: { id: string; has_html?: boolean }): void {
  replace(el, spinner("Checking the HTML…"));
  void api(`/v1/messages/${message.id}/analysis/html`).then(
    (r) => {
      const d = r.data;
      if (!d.has_html) {
        replace(el, h("p.muted", { dataset: { test: "html-none" } }, d.note ?? "No HTML body to check."));
        return;
      }
      replace(
        el,
        h(
          "div.check-summary",
          { dataset: { test: "html-score" } },
          h("strong.check-figure", null, pct(d.score.supported)),
          h(
            "span.muted",
            null,
            ` supported · ${pct(d.score.partial)} partial · ${pct(d.score.unsupported)} not supported, over ${d.features_checked} features in ${d.clients_checked} clients (caniemail, ${d.data_updated})`,
          ),
        ),
        scoreBar(d.score),
        d.warnings.length === 0
          ? h("p.muted", null, "Every feature this HTML uses works in every client caniemail has tested.")
          : h(
              "ul.check-warnings",
              null,
              d.warnings.map((w: any) =>
                h(
                  "li",
                  { dataset: { test: "html-warning", feature: w.feature } },
                  h(
                    "details",
                    null,
                    h(
                      "summary",
                      null,
                      h("strong", null, w.title),
                      h("span.muted.small", null, ` ${w.category} · ${pct(w.score.supported)} supported`),
                      scoreBar(w.score),
                    ),
                    h(
                      "ul.check-clients",
                      null,
                      w.clients.map((c: any) =>
                        h(
                          "li",
                          { dataset: { client: c.client } },
                          h(`span.pill.${c.support === "no" ? "failed" : "pending"}`, null, c.support === "no" ? "no" : "partial"),
                          h("span", null, ` ${c.name} `),
                          h("span.muted.small", null, c.version),
                          c.notes.length ? h("div.muted.small", null, c.notes.join(" ")) : null,
                        ),
                      ),
                    ),
                    h("a.small", { href: w.url, target: "_blank", rel: "noopener noreferrer" }, "caniemail.com"),
                  ),
                ),
              ),
            ),
      );
    },
    (e) => replace(el, failure(e)),
  );
}

/**
 * A check that asks something outside (spamd, the linked servers) runs on a button: the intro and
 * the button first, then what show() builds from the answer (or the failure), with a button to
 * run it again (`again` is passed to the first run after the first click).
 */
function onButton(
  el: HTMLElement,
  o: {
    intro: string;
    label: string;
    test: string;
    busy: string;
    load: (again: boolean) => Promise<any>;
    show: (d: any) => Array<Node | null>;
  },
): void {
  const button = (again: boolean) =>
    h("button.btn.sm", { onclick: () => void run(again), dataset: { test: o.test } }, again ? `${o.label} again` : o.label);
  const run = async (again: boolean) => {
    replace(el, spinner(o.busy));
    try {
      replace(el, ...o.show(await o.load(again)), button(true));
    } catch (e) {
      replace(el, failure(e), button(true));
    }
  };
  replace(el, h("p.muted", null, o.intro), button(false));
}

function renderSpam(el: HTMLElement, message: { id: string }): void {
  onButton(el, {
    intro: "Scores the message as received with SpamAssassin (the server's spamd).",
    label: "Check spam",
    test: "check-spam",
    busy: "Asking spamd…",
    load: async () => (await api(`/v1/messages/${message.id}/analysis/spam`)).data,
    show: (d) => [
      h(
        "div.check-summary",
        { dataset: { test: "spam-score" } },
        h(`span.pill.${d.is_spam ? "failed" : "passed"}`, null, d.is_spam ? "spam" : "not spam"),
        h("strong.check-figure", null, ` ${d.score}`),
        h("span.muted", null, ` / threshold ${d.threshold}`),
      ),
      d.rules.length
        ? h(
            "table.headers",
            null,
            h(
              "tbody",
              null,
              d.rules.map((r: any) => h("tr", null, h("th", null, r.name), h("td", null, String(r.score)), h("td", null, r.description))),
            ),
          )
        : null,
    ],
  });
}

const AUTH_PILL: Record<string, string> = { pass: "passed", fail: "failed", none: "pending" };
const resultPill = (result: string) =>
  h(`span.pill.${result === "pass" ? "passed" : /fail|permerror/.test(result) ? "failed" : "pending"}`, null, result);

function renderAuth(el: HTMLElement, message: { id: string }): void {
  replace(el, spinner("Reading the authentication results…"));
  void api(`/v1/messages/${message.id}/analysis/auth`).then(
    (r) => {
      const d = r.data;
      const row = (name: string, result: string, detail: string | null) =>
        h(
          "tr",
          { dataset: { mechanism: name } },
          h("th", null, name),
          h("td", null, resultPill(result)),
          h("td.muted.small", null, detail ?? ""),
        );
      replace(
        el,
        h(
          "div.check-summary",
          { dataset: { test: "auth-verdict" } },
          h(`span.pill.${AUTH_PILL[d.verdict] ?? "pending"}`, null, d.verdict),
          h(
            "span.muted",
            null,
            d.client_ip ? ` sent from ${d.client_ip}${d.helo ? ` (${d.helo})` : ""}` : " imported: judged by its Received header",
          ),
        ),
        h(
          "table.headers",
          null,
          h(
            "tbody",
            null,
            row("SPF", d.spf.result, [d.spf.domain, d.spf.comment].filter(Boolean).join(": ")),
            d.dkim.length === 0
              ? row("DKIM", "none", "not signed")
              : d.dkim.map((k: any) => row("DKIM", k.result, `d=${k.domain} s=${k.selector}${k.comment ? `: ${k.comment}` : ""}`)),
            row(
              "DMARC",
              d.dmarc.result,
              [d.dmarc.domain, d.dmarc.policy && `p=${d.dmarc.policy}`, d.dmarc.comment].filter(Boolean).join(" · "),
            ),
            row("ARC", d.arc.result, d.arc.comment),
          ),
        ),
        d.headers
          ? h("details", null, h("summary.small", null, "Headers a receiving server would add"), h("pre.small", null, d.headers))
          : null,
      );
    },
    (e) => replace(el, failure(e)),
  );
}

function renderLinks(el: HTMLElement, message: { id: string }): void {
  onButton(el, {
    intro: "Requests every link and remote image of the message (HEAD, then GET) from the server.",
    label: "Check links",
    test: "check-links",
    busy: "Requesting every link and image…",
    load: async (again) => (await api(`/v1/messages/${message.id}/analysis/links${again ? "?refresh=true" : ""}`)).data,
    show: (d) => {
      const broken = d.links.filter((l: any) => !l.ok).length;
      return [
        h(
          "div.check-summary",
          { dataset: { test: "links-summary" } },
          h(`span.pill.${broken ? "failed" : "passed"}`, null, broken ? `${broken} broken` : "all ok"),
          h("span.muted", null, ` ${d.links.length} checked${d.truncated ? " (more not checked)" : ""}`),
        ),
        d.links.length
          ? h(
              "table.headers.link-table",
              null,
              h(
                "tbody",
                null,
                d.links.map((l: any) =>
                  h(
                    "tr",
                    { dataset: { test: "link-row", ok: String(l.ok) } },
                    // Short cells keep their words whole (the URL cell is the one that breaks); the code is shown
                    // as the API gives it ("dns", "private_address"), its explanation being error_message below the URL.
                    h(
                      "td.fit",
                      null,
                      h(
                        `span.pill.${l.ok ? "passed" : "failed"}`,
                        { title: l.error_message ?? undefined, dataset: { test: "link-status" } },
                        l.status === null ? (l.error ?? "error") : String(l.status),
                      ),
                    ),
                    h("td.small.fit", { dataset: { test: "link-kind" } }, l.kind),
                    h(
                      "td.link-url",
                      null,
                      h("span.mono.small", null, l.url),
                      l.redirects.length
                        ? h("div.muted.small", null, `→ ${l.redirects.map((r: any) => `${r.status} ${r.url}`).join(" → ")}`)
                        : null,
                      l.error_message ? h("div.muted.small", null, l.error_message) : null,
                    ),
                  ),
                ),
              ),
            )
          : h("p.muted", null, "No links or remote images."),
      ];
    },
  });
}
