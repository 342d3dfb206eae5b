// API keys: list, create (the secret is shown once), rotate (new secret shown once), revoke.
import { api, createOne, describe, list } from "../api";
import { confirmDialog, dialog, empty, h, icon, relTime, replace, showSecretOnce, spinner, toast } from "../dom";
import type { Page } from "../main";
// The one vocabulary the server checks (src/tenancy/scopes.ts is pure data and functions, safe to bundle).
import { SCOPES } from "../../../src/tenancy/scopes";

interface ApiKey {
  id: string;
  name: string;
  environment: string;
  last_four: string;
  scopes: string[];
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
  secret?: string;
}

export class KeysPage implements Page {
  private body = h("div.table-wrap");
  private secretBox = h("div");
  private keys: ApiKey[] = [];

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
            h("h1", null, "API keys"),
            h("p.muted", null, "Keys authenticate CI jobs and scripts against this project. A secret is shown only once."),
          ),
          h("button.btn.primary", { onclick: () => void this.create(), dataset: { test: "new-key" } }, icon("plus"), "New API key"),
        ),
        this.secretBox,
        this.body,
      ),
    );
    void this.load();
  }

  private async load() {
    if (!this.keys.length) replace(this.body, spinner());
    try {
      this.keys = (await list<ApiKey>("/v1/api-keys?limit=100")).data;
    } catch (e) {
      return replace(this.body, empty("Could not load API keys", describe(e), "key"));
    }
    if (!this.keys.length) return replace(this.body, empty("No API keys", "Create one for your test suite.", "key"));
    replace(
      this.body,
      h(
        "table.grid",
        null,
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            ["Name", "Key", "Scopes", "Last used", "Expires", "Created", ""].map((t) => h("th", null, t)),
          ),
        ),
        h(
          "tbody",
          null,
          this.keys.map((k) =>
            h(
              "tr",
              { class: k.revoked_at ? "revoked" : "", dataset: { id: k.id, test: "key-row" } },
              h("td.primary-cell", null, h("strong", null, k.name), k.revoked_at ? h("span.pill.revoked", null, "revoked") : null),
              h("td", { dataset: { label: "Key" } }, h("code", null, `…${k.last_four}`)),
              h(
                "td",
                { dataset: { label: "Scopes" } },
                k.scopes.includes("*")
                  ? h("span.chip", null, "full access")
                  : h(
                      "span.scopes",
                      { title: k.scopes.join(", ") },
                      k.scopes.length > 3 ? `${k.scopes.slice(0, 3).join(", ")} +${k.scopes.length - 3}` : k.scopes.join(", "),
                    ),
              ),
              h("td", { dataset: { label: "Last used" } }, k.last_used_at ? relTime(k.last_used_at) : "never"),
              h("td", { dataset: { label: "Expires" } }, k.expires_at ? relTime(k.expires_at) : "never"),
              h("td", { dataset: { label: "Created" } }, relTime(k.created_at)),
              h(
                "td.actions",
                null,
                k.revoked_at
                  ? null
                  : [
                      h(
                        "button.btn.sm",
                        { onclick: () => void this.rotate(k), dataset: { test: "rotate" } },
                        icon("refresh", 14),
                        "Rotate",
                      ),
                      h("button.btn.sm.danger", { onclick: () => void this.revoke(k), dataset: { test: "revoke" } }, "Revoke"),
                    ],
              ),
            ),
          ),
        ),
      ),
    );
  }

  private showSecret(k: ApiKey, verb: string) {
    showSecretOnce(this.secretBox, `${verb} “${k.name}”.`, k.secret ?? "");
  }

  private async create() {
    const name = h("input", { name: "name", maxLength: 100, required: true, placeholder: "e.g. CI pipeline" });
    const full = h("input", { type: "checkbox", checked: true });
    const boxes = SCOPES.map((s) => h("input", { type: "checkbox", value: s }));
    const grid = h(
      "div.scope-grid.hidden",
      null,
      boxes.map((b) => h("label.check", null, b, b.value)),
    );
    full.addEventListener("change", () => grid.classList.toggle("hidden", full.checked));
    let created: ApiKey | null = null;
    const v = await dialog<{ name: string; scopes?: string[] }>(
      "New API key",
      h("div.form-grid", null, h("label", null, "Name", name), h("label.check", null, full, "Full access (all scopes)"), grid),
      {
        submit: "Create key",
        collect: () => {
          if (!name.value.trim()) {
            name.focus();
            return null;
          }
          return { name: name.value.trim(), scopes: full.checked ? undefined : boxes.filter((b) => b.checked).map((b) => b.value) };
        },
        apply: async (v) => {
          created = await createOne<ApiKey>("/v1/api-keys", v, "the key");
        },
      },
    );
    if (!v || !created) return;
    this.showSecret(created, "Created");
    void this.load();
  }

  private async rotate(k: ApiKey) {
    if (
      !(await confirmDialog("Rotate this key?", `The current secret of “${k.name}” stops working at once; a new one is shown.`, "Rotate"))
    )
      return;
    try {
      const r = await api<{ data: ApiKey }>(`/v1/api-keys/${k.id}/rotate`, { method: "POST" });
      this.showSecret(r.data, "Rotated");
      void this.load();
    } catch (e) {
      toast(`Could not rotate: ${describe(e)}`, "error");
    }
  }

  private async revoke(k: ApiKey) {
    if (!(await confirmDialog("Revoke this key?", `“${k.name}” (…${k.last_four}) stops working at once. This cannot be undone.`, "Revoke")))
      return;
    try {
      await api(`/v1/api-keys/${k.id}/revoke`, { method: "POST" });
      toast(`Revoked ${k.name}`, "ok");
      void this.load();
    } catch (e) {
      toast(`Could not revoke: ${describe(e)}`, "error");
    }
  }
}
