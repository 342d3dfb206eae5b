// The rule both robustness tests hold every answer to: bad input never gets a 5xx, and every error
// is in the contract's envelope ({code, message, details, request_id}).

/**
 * What breaks the rule in one answer, or null. `expected5xx`: error codes a 5xx may carry by design
 * (503 analysis_unavailable, the spam check without spamd).
 */
export function envelopeFault(status: number, text: string, expected5xx: string[] = []): string | null {
  if (status < 400) return null;
  let envelope: any = null;
  try {
    envelope = JSON.parse(text);
  } catch {}
  if (status >= 500 && !expected5xx.includes(envelope?.code)) return `${status} ${text.slice(0, 200)}`;
  if (typeof envelope?.code !== "string" || typeof envelope?.request_id !== "string")
    return `${status} outside the envelope: ${text.slice(0, 120)}`;
  return null;
}
