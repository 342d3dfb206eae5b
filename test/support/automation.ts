// Shared by the automation tests: a tiny sign-up app on 127.0.0.1 that mails a verification
// code over real SMTP into inboxd, and helpers to publish scenarios and launch runs.
import nodemailer from "nodemailer";
import { json, type Instance } from "./harness";

export interface SignupApp {
  url: string;
  /** Tokens the app received in X-Api-Token on /verify. */
  tokens: string[];
  /** Requests that reached /slow. */
  slowHits: number;
  /** The last code mailed. */
  lastCode: string;
  stop(): void;
}

export function startSignupApp(smtpPort: () => number): SignupApp {
  const pending = new Map<string, string>();
  const app: SignupApp = { url: "", tokens: [], slowHits: 0, lastCode: "", stop: () => server.stop(true) };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method === "POST" && path === "/signup") {
        const { email } = (await req.json()) as { email: string };
        const code = String(100000 + Math.floor(Math.random() * 900000));
        pending.set(email, code);
        app.lastCode = code;
        const t = nodemailer.createTransport({
          host: "127.0.0.1",
          port: smtpPort(),
          secure: false,
          tls: { rejectUnauthorized: false },
        } as any);
        try {
          await t.sendMail({
            from: "Signup App <noreply@signup.test>",
            to: email,
            subject: "Your verification code",
            text: `Welcome! Your code is ${code}. It expires in 10 minutes.\n\nOr open https://signup.test/verify?code=${code} to confirm.\nHelp: https://signup.test/help`,
          });
        } finally {
          t.close();
        }
        return Response.json({ ok: true });
      }
      if (req.method === "POST" && path === "/verify") {
        app.tokens.push(req.headers.get("x-api-token") ?? "");
        const { email, code } = (await req.json()) as { email: string; code: string };
        const ok = pending.get(email) === code;
        return Response.json({ verified: ok, echo: req.headers.get("x-api-token") }, { status: ok ? 200 : 400 });
      }
      if (path === "/slow") {
        app.slowHits++;
        await Bun.sleep(4000);
        return Response.json({ slow: true });
      }
      return new Response("not found", { status: 404 });
    },
  });
  app.url = `http://127.0.0.1:${server.port}`;
  return app;
}

export async function standardAgent(inst: Instance, token?: string): Promise<string> {
  const r = await json(inst.api("/v1/agents", { token }));
  const a = r.body.data.find((x: any) => x.preset === "standard");
  if (!a) throw new Error(`no standard agent: ${JSON.stringify(r.body)}`);
  return a.id;
}

/** Creates and publishes a scenario; returns its id. */
export async function publishScenario(inst: Instance, definition: unknown, name = "scenario"): Promise<string> {
  const c = await json(inst.api("/v1/scenarios", { method: "POST", json: { name, draft_definition: definition } }));
  if (c.status !== 201) throw new Error(`create scenario: ${c.status} ${JSON.stringify(c.body)}`);
  const p = await json(inst.api(`/v1/scenarios/${c.body.data.id}/publish`, { method: "POST" }));
  if (p.status !== 201) throw new Error(`publish: ${p.status} ${JSON.stringify(p.body)}`);
  return c.body.data.id;
}

export async function launch(inst: Instance, body: Record<string, unknown>, wait = 0) {
  return json(inst.api(`/v1/runs?wait=${wait}`, { method: "POST", json: body }));
}

/** Polls a run until `pred` holds (or throws after `seconds`). */
export async function until(inst: Instance, runId: string, pred: (run: any, events: any[]) => boolean, seconds = 30) {
  const end = Date.now() + seconds * 1000;
  for (;;) {
    const run = (await json(inst.api(`/v1/runs/${runId}`))).body.data;
    const events = (await json(inst.api(`/v1/runs/${runId}/events?limit=100`))).body.data;
    if (pred(run, events)) return { run, events };
    if (Date.now() > end) throw new Error(`run ${runId} never reached the condition: ${JSON.stringify(run)}`);
    await Bun.sleep(100);
  }
}

export const TERMINAL = ["succeeded", "failed", "cancelled", "timed_out"];
