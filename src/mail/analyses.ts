// The checks of the mail itself (API.md "Analysis", docs/analysis.md), one service each, under
// one name so REST, MCP and the scenario step message.check reach them the same way.
import type { AppContext } from "../runtime/context";
import type { MessageService } from "./messages";
import { HtmlCheckService } from "./html-check";
import { SpamCheckService } from "./spam-check";
import { AuthCheckService } from "./auth-check";
import { LinkCheckService } from "./link-check";

export function buildAnalyses(ctx: AppContext, messages: MessageService) {
  return {
    spam: new SpamCheckService(ctx, messages),
    auth: new AuthCheckService(ctx, messages),
    html: new HtmlCheckService(messages),
    links: new LinkCheckService(ctx, messages),
  };
}

export type MessageAnalyses = ReturnType<typeof buildAnalyses>;

/** The analyses message.check (and its MCP tool twins) may name, with what each answers. */
export const CHECKS = {
  spam: (a: MessageAnalyses, projectId: string, messageId: string) => a.spam.analyse(projectId, messageId),
  auth: (a: MessageAnalyses, projectId: string, messageId: string) => a.auth.analyse(projectId, messageId),
  html: (a: MessageAnalyses, projectId: string, messageId: string) => a.html.analyse(projectId, messageId),
  links: (a: MessageAnalyses, projectId: string, messageId: string) => a.links.analyse(projectId, messageId),
} satisfies Record<string, (a: MessageAnalyses, projectId: string, messageId: string) => Promise<object>>;

export type CheckName = keyof typeof CHECKS;
export const CHECK_NAMES = Object.keys(CHECKS) as CheckName[];
