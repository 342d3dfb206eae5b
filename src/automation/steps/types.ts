// What a step handler is given and how it reports failure. Handlers get resolved parameters
// (references already interpolated, secrets included) and must honour `signal` promptly.
import type { AppContext } from "../../runtime/context";
import type { ProjectRef } from "../../tenancy/auth";
import type { InboxService } from "../../mail/inboxes";
import type { MessageService } from "../../mail/messages";
import type { MessageAnalyses } from "../../mail/analyses";
import type { MailRemoval } from "../../mail/removal";
import type { OriginService } from "../origins";

export interface StepDeps {
  inboxes: InboxService;
  messages: MessageService;
  analyses: MessageAnalyses;
  removal: MailRemoval;
  origins: OriginService;
}

export interface StepContext {
  ctx: AppContext;
  deps: StepDeps;
  project: ProjectRef;
  runId: string;
  agentPermissions: string[];
  /** When the step first started (persisted, so waits resume their remaining time after a restart). */
  startedAt: number;
  signal: AbortSignal;
  /** Adds a created resource to the run's cleanup ledger. */
  ledger(resourceType: "inbox", resourceId: string): Promise<void>;
  /** Marks a ledger entry as removed by the scenario itself. */
  ledgerRemoved(resourceType: "inbox", resourceId: string): Promise<void>;
}

export type StepHandler = (sc: StepContext, params: Record<string, any>) => Promise<Record<string, unknown>>;

export interface FailedAssertion {
  step_index: number;
  step_id: string | null;
  check: string;
  expected: unknown;
  actual: unknown;
  message: string;
}

/** A step's own failure: the run fails with this code and message. */
export class StepError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly failedAssertions: Omit<FailedAssertion, "step_index" | "step_id">[] = [],
  ) {
    super(message);
  }
}

/** Resolves after ms, or rejects with the signal's reason when it aborts first. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    const t = setTimeout(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
