// The spam analysis of a message (API.md "Analysis": GET /v1/messages/{id}/analysis/spam): its
// exact received bytes scored by SpamAssassin's spamd at INBOXD_SPAMD (lib/spamc.ts). Without
// spamd, or when it is down, the answer is 503 analysis_unavailable: never a made-up score.
import type { AppContext } from "../runtime/context";
import { DomainError } from "../lib/errors";
import { type SpamReport, SpamdError, spamdReport } from "../lib/spamc";
import type { MessageService } from "./messages";

/** spamd scores a 10 KB message in tens of milliseconds; a big one (or a slow DNS rule) in seconds. */
const SPAMD_TIMEOUT_MS = 30_000;

export interface SpamAnalysis {
  score: number;
  threshold: number;
  is_spam: boolean;
  rules: Array<{ name: string; score: number; description: string }>;
}

export class SpamCheckService {
  constructor(
    private readonly ctx: AppContext,
    private readonly messages: MessageService,
  ) {}

  async analyse(projectId: string, messageId: string): Promise<SpamAnalysis> {
    const raw = await this.messages.raw(projectId, messageId);
    const spamd = this.ctx.config.spamd;
    if (!spamd) throw unavailable("no spam checker is configured (set INBOXD_SPAMD to spamd's host:port)");
    let report: SpamReport;
    try {
      report = await spamdReport(spamd, raw, SPAMD_TIMEOUT_MS);
    } catch (e) {
      if (e instanceof SpamdError) throw unavailable(e.message);
      throw e;
    }
    return { score: report.score, threshold: report.threshold, is_spam: report.isSpam, rules: report.rules };
  }
}

function unavailable(message: string): DomainError {
  return new DomainError("unavailable", "analysis_unavailable", message);
}
