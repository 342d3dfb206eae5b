// Runs list (#/runs) and one run (#/runs/ID) with its event timeline and failed assertions.
import { ApiFailure, api, describe, list } from "../api";
import { empty, fullTime, h, icon, json, relTime, replace, spinner } from "../dom";
import { pushKeys, reveal } from "../keys";
import { debounce, onLive } from "../live";
import type { Page } from "../main";

interface Run {
  id: string;
  status: string;
  agent: { id: string; name: string } | null;
  scenario: { id: string; name: string; version: number } | null;
  trigger: Record<string, unknown> | null;
  current_step_index: number;
  started_at: string | null;
  finished_at: string | null;
  cleanup_status: string;
  failed_assertions: Record<string, unknown>[];
  step_count: number;
  created_at: string;
  inputs?: Record<string, unknown>;
  cleanup_error?: string;
  steps?: Record<string, unknown>[];
}

interface RunEvent {
  id: string;
  sequence: number;
  type: string;
  payload: Record<string, unknown>;
  occurred_at: string;
}

function duration(a: string | null, b: string | null): string {
  if (!a) return "–";
  const ms = (b ? new Date(b).getTime() : Date.now()) - new Date(a).getTime();
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** One line from an event's payload: its message, else the step it concerns. */
function eventSummary(ev: RunEvent): string {
  const p = (ev.payload ?? {}) as Record<string, unknown>;
  if (typeof p.message === "string") return p.message;
  const step = p.step_id ?? p.step_name ?? (typeof p.step_index === "number" ? `#${p.step_index + 1}` : null);
  const parts = [
    step ? `step ${step}` : "",
    typeof p.status === "string" ? p.status.replaceAll("_", " ") : "",
    typeof p.type === "string" ? p.type : "",
  ];
  return parts.filter(Boolean).join(" · ");
}

const statusPill = (s: string) => h("span.pill", { class: s }, s.replaceAll("_", " "));

function notAvailable(e: unknown, what: string) {
  return e instanceof ApiFailure && e.routeMissing
    ? empty(`${what} are not available`, "This server does not offer the runs API yet.", "play")
    : e instanceof ApiFailure && e.status === 404
      ? empty("Run not found", "It does not exist in this project.", "play")
      : empty(`Could not load ${what.toLowerCase()}`, describe(e), "play");
}

export class RunsPage implements Page {
  private root!: HTMLElement;
  private runId: string | null = null;
  private cleanups: (() => void)[] = [];
  private refresh: () => void = () => {};
  private selected = -1;
  private runs: Run[] = [];

  mount(root: HTMLElement, params: string[]) {
    this.root = root;
    const again = debounce(() => this.refresh(), 250);
    this.cleanups.push(onLive((e) => (e.type === "poll" || e.type.startsWith("run") || e.type.startsWith("approval")) && again()));
    this.cleanups.push(
      pushKeys({
        rows: () => (this.runId ? [] : [...this.root.querySelectorAll<HTMLElement>("tr.run-row")]),
        selected: () => this.selected,
        select: (i) => {
          this.selected = i;
          const rows = [...this.root.querySelectorAll<HTMLElement>("tr.run-row")];
          rows.forEach((r, j) => r.classList.toggle("selected", i === j));
          reveal(rows[i]);
        },
        open: (i) => {
          const r = this.runs[i];
          if (r) location.hash = `/runs/${r.id}`;
        },
        back: () => {
          if (this.runId) location.hash = "/runs";
        },
      }),
    );
    this.update(params);
  }

  unmount() {
    for (const c of this.cleanups) c();
  }

  update(params: string[]) {
    this.runId = params[0] ?? null;
    if (this.runId) this.showRun(this.runId);
    else this.showList();
  }

  private showList() {
    const body = h("div.table-wrap", null, spinner());
    replace(
      this.root,
      h(
        "div.page",
        null,
        h("div.page-head", null, h("div", null, h("h1", null, "Runs"), h("p.muted", null, "Scenario runs of this project, newest first."))),
        body,
      ),
    );
    const load = async () => {
      try {
        this.runs = (await list<Run>("/v1/runs?limit=100")).data;
      } catch (e) {
        return replace(body, notAvailable(e, "Runs"));
      }
      if (!this.runs.length)
        return replace(body, empty("No runs yet", "Launch a scenario with POST /v1/runs, or let an agent open a session.", "play"));
      replace(
        body,
        h(
          "table.grid",
          null,
          h(
            "thead",
            null,
            h(
              "tr",
              null,
              ["Status", "Scenario", "Agent", "Progress", "Started", "Duration"].map((t) => h("th", null, t)),
            ),
          ),
          h(
            "tbody",
            null,
            this.runs.map((r, i) =>
              h(
                "tr.run-row",
                { class: i === this.selected ? "selected" : "", dataset: { id: r.id }, onclick: () => (location.hash = `/runs/${r.id}`) },
                h(
                  "td.primary-cell",
                  null,
                  statusPill(r.status),
                  r.failed_assertions?.length
                    ? h("span.chip.bad", { title: "failed assertions" }, `${r.failed_assertions.length} failed`)
                    : null,
                ),
                h(
                  "td",
                  { dataset: { label: "Scenario" } },
                  h(
                    "a",
                    { href: `#/runs/${r.id}` },
                    r.scenario ? `${r.scenario.name}` : r.trigger && (r.trigger as any).type === "mcp" ? "MCP session" : "(ad hoc)",
                  ),
                  r.scenario ? h("span.muted", null, ` v${r.scenario.version}`) : null,
                ),
                h("td", { dataset: { label: "Agent" } }, r.agent?.name ?? "–"),
                h(
                  "td",
                  { dataset: { label: "Progress" } },
                  r.step_count ? `${Math.min(r.current_step_index + (r.finished_at ? 1 : 0), r.step_count)}/${r.step_count} steps` : "–",
                ),
                h(
                  "td",
                  { title: fullTime(r.started_at ?? r.created_at), dataset: { label: "Started" } },
                  relTime(r.started_at ?? r.created_at),
                ),
                h("td", { dataset: { label: "Duration" } }, duration(r.started_at, r.finished_at)),
              ),
            ),
          ),
        ),
      );
    };
    this.refresh = () => void load();
    void load();
  }

  private showRun(id: string) {
    const body = h("div", null, spinner());
    replace(this.root, h("div.page", null, h("a.crumb", { href: "#/runs" }, icon("back", 14), "All runs"), body));
    const load = async () => {
      let run: Run;
      const events: RunEvent[] = [];
      let eventsError: string | null = null;
      try {
        run = (await api(`/v1/runs/${id}`)).data;
      } catch (e) {
        return replace(body, notAvailable(e, "Runs"));
      }
      try {
        let cursor: string | null = null;
        do {
          const r: any = await list<RunEvent>(`/v1/runs/${id}/events?limit=100${cursor ? `&cursor=${cursor}` : ""}`);
          events.push(...r.data);
          cursor = r.links.next;
        } while (cursor && events.length < 1000);
      } catch (e) {
        eventsError = describe(e);
      }
      events.sort((a, b) => a.sequence - b.sequence);
      const fa = run.failed_assertions ?? [];
      replace(
        body,
        h(
          "div.page-head",
          null,
          h(
            "div",
            null,
            h(
              "h1",
              null,
              run.scenario ? `${run.scenario.name} ` : "Run ",
              run.scenario ? h("span.muted", null, `v${run.scenario.version}`) : null,
            ),
            h("p.muted", null, h("code", null, run.id)),
          ),
          statusPill(run.status),
        ),
        h(
          "div.facts",
          null,
          [
            ["Agent", run.agent?.name ?? "–"],
            ["Trigger", String((run.trigger as any)?.type ?? (run.trigger ? json(run.trigger) : "–"))],
            ["Started", fullTime(run.started_at)],
            ["Finished", fullTime(run.finished_at)],
            ["Duration", duration(run.started_at, run.finished_at)],
            ["Steps", run.step_count ? `${run.current_step_index + 1} of ${run.step_count}` : "–"],
            ["Cleanup", (run.cleanup_status || "–").replaceAll("_", " ")],
          ].map(([k, v]) => h("div.fact", null, h("span.muted.small", null, k), h("strong", null, v))),
        ),
        run.status === "awaiting_approval"
          ? h(
              "div.notice",
              null,
              icon("shield", 16),
              h("span", null, "This run waits for a decision. "),
              h("a", { href: "#/approvals" }, "Open approvals"),
            )
          : null,
        run.cleanup_error ? h("div.notice.bad", null, `Cleanup error: ${run.cleanup_error}`) : null,
        fa.length
          ? h(
              "section.failed",
              { dataset: { test: "failed-assertions" } },
              h("h2", null, `Failed assertions (${fa.length})`),
              h(
                "ul",
                null,
                fa.map((a: any) =>
                  h(
                    "li",
                    null,
                    h("strong", null, a.message ?? a.assertion ?? a.name ?? a.type ?? "assertion failed"),
                    a.expected !== undefined || a.actual !== undefined
                      ? h(
                          "div.small",
                          null,
                          "expected ",
                          h("code", null, JSON.stringify(a.expected)),
                          " got ",
                          h("code", null, JSON.stringify(a.actual)),
                        )
                      : null,
                    h("details", null, h("summary", null, "details"), h("pre.json", null, json(a))),
                  ),
                ),
              ),
            )
          : null,
        run.inputs && Object.keys(run.inputs).length
          ? h("details.snapshot", null, h("summary", null, "Inputs"), h("pre.json", null, json(run.inputs)))
          : null,
        h("h2", null, "Timeline"),
        eventsError
          ? empty("Events unavailable", eventsError, "clock")
          : events.length
            ? h(
                "ol.timeline",
                { dataset: { test: "timeline" } },
                events.map((ev) =>
                  h(
                    "li",
                    {
                      class: /fail|error|reject|expired|cancel/.test(ev.type)
                        ? "bad"
                        : /await|park|pending/.test(ev.type)
                          ? "wait"
                          : /finish|succeed|pass|approved|complete/.test(ev.type)
                            ? "good"
                            : "",
                    },
                    h("span.tl-dot"),
                    h(
                      "div.tl-body",
                      null,
                      h(
                        "div.tl-head",
                        null,
                        h("strong", null, ev.type),
                        h(
                          "span.muted.small",
                          { title: fullTime(ev.occurred_at) },
                          `#${ev.sequence} · ${new Date(ev.occurred_at).toLocaleTimeString()}`,
                        ),
                      ),
                      eventSummary(ev) ? h("div.small.muted", null, eventSummary(ev)) : null,
                      ev.payload && Object.keys(ev.payload).length
                        ? h("details", null, h("summary", null, "payload"), h("pre.json", null, json(ev.payload)))
                        : null,
                    ),
                  ),
                ),
              )
            : empty("No events yet", undefined, "clock"),
      );
    };
    this.refresh = () => void load();
    void load();
  }
}
