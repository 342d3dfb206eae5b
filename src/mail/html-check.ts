// The HTML analysis of a message (API.md "Analysis": GET /v1/messages/{id}/analysis/html): every
// HTML and CSS feature the message's HTML uses (mail/html-features.ts), each matched against
// caniemail's per-client support (mail/html-support-data.ts). Warnings are the features some
// client supports only partly or not at all; the score says how much of what the mail uses works
// where. The HTML is the body as received, not the sanitised copy the API serves.
import type { MessageService } from "./messages";
import { htmlFeatures } from "./html-features";
import { type Feature, type Support, supportData } from "./html-support-data";

export interface SupportScore {
  /** percent of the checked (feature, client) results that are full support */
  supported: number;
  partial: number;
  unsupported: number;
}

export interface HtmlWarning {
  feature: string;
  title: string;
  category: string;
  url: string;
  score: SupportScore;
  clients: Array<{ client: string; name: string; version: string; support: Exclude<Support, "yes">; notes: string[] }>;
}

export interface HtmlAnalysis {
  has_html: boolean;
  /** null when there is no HTML to check */
  score: SupportScore | null;
  clients_checked: number;
  features_checked: number;
  data_updated: string;
  note?: string;
  warnings: HtmlWarning[];
}

export class HtmlCheckService {
  constructor(private readonly messages: MessageService) {}

  async analyse(projectId: string, messageId: string): Promise<HtmlAnalysis> {
    const m = await this.messages.get(projectId, messageId);
    return analyseHtml(m.html_body ?? "");
  }
}

export function analyseHtml(html: string): HtmlAnalysis {
  const data = supportData();
  const base = { clients_checked: data.clients.length, data_updated: data.updated };
  if (html.trim() === "") {
    return {
      has_html: false,
      score: null,
      ...base,
      features_checked: 0,
      note: "the message has no HTML body; nothing to check",
      warnings: [],
    };
  }
  const used = [...htmlFeatures(html, new Set(data.features.keys()))].map((slug) => data.features.get(slug)!);
  const total = { yes: 0, partial: 0, no: 0 };
  const warnings: HtmlWarning[] = [];
  for (const f of used) {
    const counts = tally(f);
    total.yes += counts.yes;
    total.partial += counts.partial;
    total.no += counts.no;
    if (counts.partial + counts.no === 0) continue;
    warnings.push({
      feature: f.slug,
      title: f.title,
      category: f.category,
      url: f.url,
      score: percent(counts),
      clients: f.clients
        .filter((c) => c.support !== "yes")
        .map((c) => ({ client: c.client, name: c.name, version: c.version, support: c.support as "partial" | "no", notes: c.notes })),
    });
  }
  // Worst first: least fully supported, then most unsupported, then by name for a stable order.
  warnings.sort(
    (a, b) => a.score.supported - b.score.supported || b.score.unsupported - a.score.unsupported || a.feature.localeCompare(b.feature),
  );
  return { has_html: true, score: percent(total), ...base, features_checked: used.length, warnings };
}

function tally(f: Feature): { yes: number; partial: number; no: number } {
  const n = { yes: 0, partial: 0, no: 0 };
  for (const c of f.clients) n[c.support]++;
  return n;
}

function percent(n: { yes: number; partial: number; no: number }): SupportScore {
  const all = n.yes + n.partial + n.no;
  if (all === 0) return { supported: 100, partial: 0, unsupported: 0 };
  const pct = (x: number) => Math.round((x / all) * 1000) / 10;
  return { supported: pct(n.yes), partial: pct(n.partial), unsupported: pct(n.no) };
}
