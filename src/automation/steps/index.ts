// Step kind → handler. The definition language (fields, permissions) is in scenario-definition.ts.
import type { StepType } from "../scenario-definition";
import type { StepHandler } from "./types";
import { inboxCreate, inboxDelete } from "./inbox";
import { messageCheck, messageExtract, messageWait } from "./message";
import { httpRequest } from "./http";
import { assertStep, sleepStep } from "./checks";

export const STEP_HANDLERS: Record<StepType, StepHandler> = {
  "inbox.create": inboxCreate,
  "inbox.delete": inboxDelete,
  "message.wait": messageWait,
  "message.extract": messageExtract,
  "message.check": messageCheck,
  "http.request": httpRequest,
  assert: assertStep,
  sleep: sleepStep,
};

/** Steps that must not be repeated blindly after a crash mid-step (the effect may have happened). */
export function isRepeatable(step: { type: string; method?: unknown }): boolean {
  if (step.type !== "http.request") return true;
  return ["GET", "HEAD", "OPTIONS"].includes(String(step.method ?? "GET").toUpperCase());
}
