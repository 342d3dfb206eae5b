// Every route module, one per resource. A module is thin: schemas in, service call, shape out.
import type { Elysia } from "elysia";
import type { AppContext } from "../../runtime/context";
import type { Services } from "../../services";
import account from "./account";
import alerts from "./alerts";
import events from "./events";
import webhooks from "./webhooks";
import agentSessions from "./agent-sessions";
import approvals from "./approvals";
import apiKeys from "./api-keys";
import domains from "./domains";
import inboxes from "./inboxes";
import chaos from "./chaos";
import smtpChaos from "./smtp-chaos";
import mcp from "./mcp";
import messages from "./messages";
import analysis from "./analysis";
import usage from "./usage";
import ui from "./ui";
import agents from "./agents";
import httpOrigins from "./http-origins";
import scenarioSecrets from "./scenario-secrets";
import scenarios from "./scenarios";
import runs from "./runs";
import signin from "./signin";

export type RouteModule = (ctx: AppContext, services: Services) => Elysia<any, any, any, any, any, any, any>;

export const routeModules: RouteModule[] = [
  account,
  alerts,
  events,
  webhooks,
  agentSessions,
  approvals,
  apiKeys,
  domains,
  inboxes,
  chaos,
  smtpChaos,
  mcp,
  messages,
  analysis,
  usage,
  agents,
  httpOrigins,
  scenarioSecrets,
  scenarios,
  runs,
  signin,
  ui,
];
