// Entry point: log-in gate, the application shell (top bar, project switcher, navigation, alerts
// bell) and the hash router (#/inboxes/ID/MESSAGE, #/approvals, #/runs/ID, #/webhooks/ID, #/keys).
import { api, ApiFailure, clearSession, projectId, session, setProjectId, setUnauthorizedHandler, describe } from "./api";
import { h, icon, replace, toast } from "./dom";
import { installKeys } from "./keys";
import { connectLive, debounce, disconnectLive, onLive, onLiveStatus } from "./live";
import { redeemSignin, renderLogin, takeSigninToken } from "./pages/login";
import { AlertsBell } from "./pages/alerts";
import { MailPage } from "./pages/mail";
import { ApprovalsPage } from "./pages/approvals";
import { RunsPage } from "./pages/runs";
import { KeysPage } from "./pages/apikeys";
import { WebhooksPage } from "./pages/webhooks";

export interface Page {
  mount(root: HTMLElement, params: string[]): void;
  update?(params: string[]): void;
  unmount?(): void;
}

interface Project {
  id: string;
  name: string;
  slug: string;
  environment: string;
  role: string | null;
}

const app = document.getElementById("app")!;
let current: { key: string; page: Page } | null = null;
let view: HTMLElement | null = null;
let nav: HTMLElement | null = null;
let bell: AlertsBell | null = null;
let stopApprovalCount: (() => void) | null = null;

const ROUTES: { key: string; match: RegExp; make: () => Page; nav: string }[] = [
  { key: "mail", match: /^\/inboxes(?:\/([^/]+))?(?:\/([^/]+))?$/, make: () => new MailPage(), nav: "inboxes" },
  { key: "approvals", match: /^\/approvals$/, make: () => new ApprovalsPage(), nav: "approvals" },
  { key: "runs", match: /^\/runs(?:\/([^/]+))?$/, make: () => new RunsPage(), nav: "runs" },
  { key: "webhooks", match: /^\/webhooks(?:\/([^/]+))?$/, make: () => new WebhooksPage(), nav: "webhooks" },
  { key: "keys", match: /^\/keys$/, make: () => new KeysPage(), nav: "keys" },
];

export function go(path: string) {
  if (location.hash !== "#" + path) location.hash = path;
}

function route() {
  if (signinFromLink()) return;
  if (!session()) return showLogin();
  if (!view) return;
  const path = location.hash.replace(/^#/, "") || "/inboxes";
  for (const r of ROUTES) {
    const m = r.match.exec(path);
    if (!m) continue;
    // A second hashchange for the path already shown (go() followed by a click, both routed after the fact) must
    // not remount the page: that would throw away an open dialog or a half-filled form.
    if (current?.key === r.key && view.dataset.route === path) return;
    const params = m
      .slice(1)
      .filter((x): x is string => !!x)
      .map(decodeURIComponent);
    nav?.querySelectorAll("a").forEach((a) => a.classList.toggle("active", a.dataset.nav === r.nav));
    if (current?.key === r.key && current.page.update) {
      current.page.update(params);
    } else {
      current?.page.unmount?.();
      view.textContent = "";
      view.dataset.page = r.key;
      const page = r.make();
      current = { key: r.key, page };
      page.mount(view, params);
    }
    // Marks the path this view has taken in: hashchange fires after the click or navigation that caused it,
    // so a test (or anyone scripting the UI) waits for this instead of for an element the old page also had.
    view.dataset.route = path;
    return;
  }
  go("/inboxes");
}

/** A `#signin=TOKEN` fragment (on load, or pasted into an open tab): sign in with it, whoever was signed in. */
function signinFromLink(): boolean {
  const token = takeSigninToken();
  if (!token) return false;
  void redeemSignin(token).then((r) => {
    if (r.ok) {
      current?.page.unmount?.();
      current = null;
      view = null;
      bell?.destroy();
      bell = null;
      void start();
    } else if (session()) {
      toast(r.message, "error");
      route();
    } else showLogin(r.message);
  });
  return true;
}

function showLogin(notice?: string) {
  current?.page.unmount?.();
  current = null;
  view = null;
  bell?.destroy();
  bell = null;
  disconnectLive();
  renderLogin(app, () => void start(), notice);
}

async function logout() {
  const s = session();
  if (s?.deviceId) {
    try {
      await api(`/v1/devices/${s.deviceId}`, { method: "DELETE", project: false });
    } catch {}
  }
  clearSession();
  showLogin();
}

async function start() {
  let me: any;
  let projects: Project[];
  try {
    [me, projects] = await Promise.all([
      api("/v1/me", { project: false }).then((r) => r.data),
      api("/v1/projects?limit=100", { project: false }).then((r) => r.data as Project[]),
    ]);
  } catch (e) {
    if (e instanceof ApiFailure && e.status === 401) return showLogin();
    replace(app, h("div.boot", null, `Could not load your account: ${describe(e)}`));
    return;
  }
  if (!projects.length) {
    replace(app, h("div.boot", null, "Your user belongs to no project."));
    return;
  }
  if (!projects.some((p) => p.id === projectId())) setProjectId(projects[0]!.id);
  (window as any).__inboxd = { me, projects };

  let recount = () => {};
  const select = h(
    "select.project",
    {
      "aria-label": "Project",
      title: "Project",
      onchange: () => {
        setProjectId(select.value);
        connectLive();
        bell?.refresh();
        recount();
        current?.page.unmount?.();
        current = null;
        go("/inboxes");
        route();
      },
    },
    projects.map((p) => h("option", { value: p.id, selected: p.id === projectId() }, `${p.name} · ${p.environment}`)),
  );
  const liveDot = h("span.live-dot", { title: "live updates" });
  onLiveStatus((s) => {
    liveDot.dataset.state = s;
    liveDot.title =
      s === "live" ? "Live: updates stream in" : s === "polling" ? "Live stream unavailable: polling every 5 s" : "Connecting…";
  });
  const link = (path: string, key: string, label: string, ic: string) =>
    h("a", { href: "#" + path, dataset: { nav: key } }, icon(ic), h("span", null, label));
  nav = h(
    "nav.nav",
    null,
    link("/inboxes", "inboxes", "Inboxes", "inbox"),
    link("/approvals", "approvals", "Approvals", "shield"),
    link("/runs", "runs", "Runs", "play"),
    link("/webhooks", "webhooks", "Webhooks", "webhook"),
    link("/keys", "keys", "API keys", "key"),
  );
  // Pending approvals counted on the nav item (owners and admins; hidden when not permitted or absent).
  const approvalsBadge = h("span.badge.hidden", { dataset: { test: "approvals-count" } });
  nav.querySelector('a[data-nav="approvals"]')!.appendChild(approvalsBadge);
  const countApprovals = debounce(async () => {
    try {
      const r = await api("/v1/approvals?status=pending&limit=100");
      const n = r.data.length;
      approvalsBadge.textContent = r.meta.has_more ? "99+" : String(n);
      approvalsBadge.classList.toggle("hidden", n === 0);
    } catch {
      approvalsBadge.classList.add("hidden");
    }
  }, 300);
  stopApprovalCount?.();
  stopApprovalCount = onLive((e) => (e.type === "poll" || e.type.startsWith("approval") || e.type.startsWith("run.")) && countApprovals());
  countApprovals();
  recount = countApprovals;
  bell = new AlertsBell();
  const user = h(
    "div.user",
    null,
    h("span.user-email", { title: `${me.email} (${me.role ?? "member"})` }, me.email),
    h(
      "button.btn.icon-btn",
      { title: `Log out ${me.email}`, "aria-label": "Log out", onclick: () => void logout(), dataset: { test: "logout" } },
      icon("logout"),
    ),
  );
  const top = h(
    "header.topbar",
    null,
    h(
      "a.brand",
      { href: "#/inboxes" },
      h("img", { src: "/ui/favicon.svg", alt: "", width: 24, height: 24 }),
      h("span", null, "inboxd"),
      liveDot,
    ),
    select,
    nav,
    h("div.spacer"),
    bell.el,
    user,
  );
  view = h("main.view");
  replace(app, top, view);
  connectLive();
  bell.refresh();
  current = null;
  route();
}

setUnauthorizedHandler(() => {
  if (!session()) return;
  clearSession();
  toast("Your session ended; please log in again", "error");
  showLogin();
});

installKeys();
window.addEventListener("hashchange", route);
if (signinFromLink()) {
  // signinFromLink starts the app or shows the log-in form when the exchange is done.
} else if (session()) void start();
else showLogin();
