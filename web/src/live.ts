// Live updates from GET /v1/events (Server-Sent Events). EventSource cannot send headers, so the
// device token and the project travel as query parameters (accepted on /v1/events only). When the
// stream is unavailable the UI falls back to polling, so pages still refresh.
import { projectId, session } from "./api";

export interface LiveEvent {
  type: string;
  data: any;
}
type Handler = (e: LiveEvent) => void;

const handlers = new Set<Handler>();
let source: EventSource | null = null;
let pollTimer: ReturnType<typeof setInterval> | null = null;
let retryTimer: ReturnType<typeof setTimeout> | null = null;
let status: "off" | "live" | "polling" | "connecting" = "off";
const statusListeners = new Set<(s: typeof status) => void>();

// Named SSE events are only delivered to listeners registered for their name.
const NAMED = [
  "message.received",
  "message.created",
  "message.deleted",
  "message.flags",
  "message.read",
  "message.updated",
  "inbox.created",
  "inbox.updated",
  "inbox.deleted",
  "inbox.expiring",
  "inbox.expired",
  "inbox.quota",
  "team.quota",
  "alert",
  "alert.created",
  "alert.updated",
  "alert.read",
  "alerts.changed",
  "message.arrived",
  "run.created",
  "run.queued",
  "run.resumed",
  "run.cancel_requested",
  "run.changed",
  "run.updated",
  "run.started",
  "run.finished",
  "run.event",
  "run.event.appended",
  "approval.pending",
  "approval.created",
  "approval.decided",
  "approval.changed",
  "approval.approved",
  "approval.rejected",
  "approval.expired",
];

export const onLive = (fn: Handler) => {
  handlers.add(fn);
  return () => handlers.delete(fn);
};

export const onLiveStatus = (fn: (s: typeof status) => void) => {
  statusListeners.add(fn);
  fn(status);
  return () => statusListeners.delete(fn);
};

function setStatus(s: typeof status) {
  status = s;
  (window as any).__liveStatus = s;
  for (const fn of statusListeners) fn(s);
}

function emit(type: string, raw: string) {
  let data: any = null;
  try {
    data = raw ? JSON.parse(raw) : null;
  } catch {
    data = raw;
  }
  const t = type === "message" && data && typeof data.type === "string" ? data.type : type;
  for (const fn of handlers) fn({ type: t, data });
}

export function connectLive() {
  disconnectLive();
  const s = session();
  const p = projectId();
  if (!s || !p) return;
  setStatus("connecting");
  const url = `/v1/events?access_token=${encodeURIComponent(s.token)}&project=${encodeURIComponent(p)}`;
  const es = new EventSource(url);
  source = es;
  let opened = false;
  es.onopen = () => {
    opened = true;
    stopPolling();
    setStatus("live");
  };
  es.onmessage = (e) => emit("message", e.data);
  for (const name of NAMED) es.addEventListener(name, (e) => emit(name, (e as MessageEvent).data));
  es.onerror = () => {
    if (es.readyState === EventSource.CLOSED) {
      // A refused stream (404 before the route exists, 401) closes for good: poll instead, retry later.
      es.close();
      if (source === es) source = null;
      startPolling();
      retryTimer = setTimeout(
        () => {
          if (!source) connectLive();
        },
        opened ? 3_000 : 60_000,
      );
    } else {
      setStatus("connecting");
    }
  };
}

function startPolling() {
  setStatus("polling");
  if (pollTimer) return;
  pollTimer = setInterval(() => {
    for (const fn of handlers) fn({ type: "poll", data: null });
  }, 5_000);
}

function stopPolling() {
  if (pollTimer) clearInterval(pollTimer);
  pollTimer = null;
}

export function disconnectLive() {
  source?.close();
  source = null;
  stopPolling();
  if (retryTimer) clearTimeout(retryTimer);
  retryTimer = null;
  setStatus("off");
}

/** Calls fn at most once per `ms` for a burst of events (one refetch for many arrivals). */
export function debounce(fn: () => void, ms = 150): () => void {
  let t: ReturnType<typeof setTimeout> | null = null;
  return () => {
    if (t) return;
    t = setTimeout(() => {
      t = null;
      fn();
    }, ms);
  };
}
