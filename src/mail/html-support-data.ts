// caniemail's data (the caniemail npm package's data/caniemail.json, imported so that
// `bun build --compile` embeds it: the check works air-gapped) reduced to what the HTML check
// asks: for each feature, each client's current support. Built once, on first use.
import raw from "caniemail/caniemail.json";

export type Support = "yes" | "partial" | "no";

export interface ClientSupport {
  /** family.platform, as caniemail names it: "outlook.windows", "gmail.android" */
  client: string;
  /** "Outlook Windows" */
  name: string;
  /** the version or test date the result is from */
  version: string;
  support: Support;
  notes: string[];
}

export interface Feature {
  slug: string;
  title: string;
  category: string;
  url: string;
  /** clients whose latest result is known (caniemail's "u", unknown, is left out) */
  clients: ClientSupport[];
}

interface RawFeature {
  slug: string;
  title: string;
  category: string;
  url: string;
  stats: Record<string, Record<string, Record<string, string>>>;
  notes_by_num: Record<string, string> | null;
}
interface RawData {
  last_update_date: string;
  nicenames: { family: Record<string, string>; platform: Record<string, string> };
  data: RawFeature[];
}

export interface SupportData {
  updated: string;
  features: Map<string, Feature>;
  /** every family.platform some feature has a result for */
  clients: string[];
}

let cache: SupportData | null = null;

export function supportData(): SupportData {
  cache ??= build(raw as unknown as RawData);
  return cache;
}

function build(d: RawData): SupportData {
  const features = new Map<string, Feature>();
  const all = new Set<string>();
  for (const f of d.data) {
    const clients: ClientSupport[] = [];
    for (const [family, platforms] of Object.entries(f.stats ?? {})) {
      for (const [platform, versions] of Object.entries(platforms)) {
        const version = latest(Object.keys(versions));
        if (version === undefined) continue;
        const value = String(versions[version]);
        const client = `${family}.${platform}`;
        all.add(client);
        const support = value.startsWith("y") ? "yes" : value.startsWith("n") ? "no" : value.startsWith("a") ? "partial" : null;
        if (support === null) continue;
        const notes = [...value.matchAll(/#(\d+)/g)].map((m) => f.notes_by_num?.[m[1]!]).filter((n): n is string => !!n);
        const name = `${d.nicenames.family[family] ?? family} ${d.nicenames.platform[platform] ?? platform}`;
        clients.push({ client, name, version, support, notes });
      }
    }
    features.set(f.slug, { slug: f.slug, title: f.title, category: f.category, url: f.url, clients });
  }
  return { updated: d.last_update_date.slice(0, 10), features, clients: [...all].sort() };
}

/**
 * The newest of a client's tested versions. caniemail keys results by test date ("2024-05") or by
 * app version ("16.80", "2019" for Outlook 2019); a test date is a re-test of the current app, so
 * the newest date wins, and without one the highest version.
 */
function latest(keys: string[]): string | undefined {
  const dates = keys.filter((k) => /^(?:19|20)\d{2}-\d{2}$/.test(k)).sort();
  if (dates.length > 0) return dates[dates.length - 1];
  return [...keys].sort(compareVersions)[keys.length - 1];
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
