// Log-in: email and password create a device session (POST /v1/devices); its token is kept in localStorage.
import { api, ApiFailure, describe, saveSession } from "../api";
import { h, replace } from "../dom";

/**
 * The one-time link printed by `inboxd serve` (http://HOST:PORT/#signin=TOKEN): the token is taken
 * out of the address bar at once (history.replaceState, so it is neither kept in history nor sent
 * anywhere else), then exchanged for a device session (POST /v1/signin). Null when the URL has none.
 */
export function takeSigninToken(): string | null {
  const m = /^#signin=([^&]+)/.exec(location.hash);
  if (!m) return null;
  history.replaceState(null, "", location.pathname + location.search);
  return decodeURIComponent(m[1]!);
}

export async function redeemSignin(token: string): Promise<{ ok: true } | { ok: false; message: string }> {
  try {
    const ua = navigator.userAgent.match(/(Firefox|Edg|Chrome|Chromium|Safari)\/[\d.]+/)?.[1] ?? "browser";
    const r = await api("/v1/signin", { method: "POST", project: false, json: { token, name: `Web UI (${ua}, sign-in link)` } });
    saveSession({ token: r.data.token, deviceId: r.data.id, email: "" });
    try {
      const me = await api("/v1/me", { project: false });
      saveSession({ token: r.data.token, deviceId: r.data.id, email: me.data.email });
    } catch {}
    return { ok: true };
  } catch (err) {
    return {
      ok: false,
      message:
        err instanceof ApiFailure && err.status === 401
          ? "This sign-in link was already used or has expired. Sign in with your password, or restart inboxd for a new link."
          : `Could not sign in with the link: ${describe(err)}`,
    };
  }
}

export function renderLogin(root: HTMLElement, done: () => void, notice?: string) {
  const email = h("input", { type: "email", name: "email", autocomplete: "username", required: true, placeholder: "you@example.com" });
  const password = h("input", { type: "password", name: "password", autocomplete: "current-password", required: true });
  const error = h("p.form-error", { role: "alert" });
  const submit = h("button.btn.primary.wide", { type: "submit" }, "Sign in");
  const form = h(
    "form.login-card",
    {
      onsubmit: async (e: Event) => {
        e.preventDefault();
        error.textContent = "";
        submit.disabled = true;
        try {
          const ua = navigator.userAgent.match(/(Firefox|Edg|Chrome|Chromium|Safari)\/[\d.]+/)?.[1] ?? "browser";
          const r = await api("/v1/devices", {
            method: "POST",
            project: false,
            json: { email: email.value.trim(), password: password.value, name: `Web UI (${ua})` },
          });
          saveSession({ token: r.data.token, deviceId: r.data.id, email: email.value.trim() });
          done();
        } catch (err) {
          error.textContent =
            err instanceof ApiFailure && (err.status === 401 || err.status === 422)
              ? "Wrong email or password."
              : `Could not sign in: ${describe(err)}`;
          submit.disabled = false;
          password.select();
        }
      },
    },
    h("div.login-brand", null, h("img", { src: "/ui/favicon.svg", alt: "", width: 40, height: 40 }), h("h1", null, "inboxd")),
    h("p.muted", null, "Sign in to read your test inboxes, or open the sign-in link inboxd printed at start-up."),
    h("label", null, "Email", email),
    h("label", null, "Password", password),
    error,
    submit,
    h(
      "p.muted.small",
      null,
      "The first owner's password is printed once when the server bootstraps. API reference: ",
      h("a", { href: "/docs" }, "/docs"),
    ),
  );
  if (notice) error.textContent = notice;
  replace(root, h("div.login", null, form));
  email.value = localStorage.getItem("inboxd.email") ?? "";
  (email.value ? password : email).focus();
}
