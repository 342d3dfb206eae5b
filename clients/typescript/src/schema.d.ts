// GENERATED from inboxd's /openapi.json by clients/typescript/scripts/generate.ts: do not edit.
export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process answers and its database answers a read (503 otherwise) */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: 503 until every listener is up and the database takes writes, then 200 */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics (docs/operations.md lists the series) */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Current user */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the caller's projects */
        get: operations["listProjects"];
        put?: never;
        /** Create a project (owner or admin) */
        post: operations["createProject"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Update a project's name or settings (owner or admin) */
        patch: operations["updateProject"];
        trace?: never;
    };
    "/v1/devices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the user's device sessions */
        get: operations["listDevices"];
        put?: never;
        /** Log in: create a device session (the token is shown once) */
        post: operations["logIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/devices/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Log out a device session */
        delete: operations["logOut"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/alerts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the calling user's alerts in the bound project (device sessions only; an API key gets 403 principal_not_permitted) */
        get: operations["listAlerts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/alerts/mark-read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mark alerts read; an id that is not the caller's in this project is 422 */
        post: operations["markAlertsRead"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Server-Sent Events of the bound project (message.received, alerts of the caller, inbox, run and approval events) */
        get: operations["streamEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List webhooks */
        get: operations["listWebhooks"];
        put?: never;
        /** Register a webhook (the signing secret is in this answer only) */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a webhook */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /** Delete a webhook and its queued deliveries */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        /** Update a webhook */
        patch: operations["updateWebhook"];
        trace?: never;
    };
    "/v1/webhooks/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** New signing secret; the previous one also signs for 24 hours */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Deliveries of a webhook with every try (status, duration, response excerpt) */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a sample event now (one try, logged with the deliveries) */
        post: operations["testWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Try a finished delivery once more, now (same webhook-id, so receivers can de-duplicate); 409 while it is pending */
        post: operations["redeliverWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Pause deliveries: events keep queueing, nothing is sent until resumed */
        post: operations["pauseWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Resume deliveries (also closes an open circuit): what queued goes out now */
        post: operations["resumeWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent-sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Open an MCP agent session (creates a run with trigger_type mcp) */
        post: operations["openAgentSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent-sessions/{id}/release": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Release an agent session (idempotent; applies its cleanup ledger) */
        post: operations["releaseAgentSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List approvals (device session of a team owner or admin) */
        get: operations["listApprovals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approvals/{id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve a pending approval; the parked run resumes at the same step */
        post: operations["approveApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approvals/{id}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reject a pending approval; the parked run fails */
        post: operations["rejectApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List API keys */
        get: operations["listApiKeys"];
        put?: never;
        /** Create an API key (secret shown once) */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show an API key */
        get: operations["getApiKey"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys/{id}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke an API key */
        post: operations["revokeApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys/{id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rotate a key's secret (new secret shown once) */
        post: operations["rotateApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List custom domains */
        get: operations["listDomains"];
        put?: never;
        /** Create a custom domain (answers the DNS records to publish) */
        post: operations["createDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a custom domain */
        get: operations["getDomain"];
        put?: never;
        post?: never;
        /** Delete a custom domain */
        delete: operations["deleteDomain"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{id}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Look the DNS records up now and update the domain's status */
        post: operations["verifyDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{id}/catch-all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Set or clear the domain's catch-all inbox */
        post: operations["setDomainCatchAll"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inboxes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List inboxes */
        get: operations["listInboxes"];
        put?: never;
        /** Create an inbox */
        post: operations["createInbox"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inboxes/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show an inbox */
        get: operations["getInbox"];
        put?: never;
        post?: never;
        /** Delete an inbox with its messages */
        delete: operations["deleteInbox"];
        options?: never;
        head?: never;
        /** Update an inbox (name and/or ttl_seconds) */
        patch: operations["updateInbox"];
        trace?: never;
    };
    "/v1/inboxes/{id}/credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** IMAP/POP3 credentials of an inbox */
        get: operations["getInboxCredentials"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inboxes/{id}/credentials/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace the inbox's IMAP/POP3 password; open IMAP and POP3 sessions logged in with it end */
        post: operations["createInboxCredentialRotate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inboxes/{id}/mark-read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mark every message up to an id read */
        post: operations["markInboxRead"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inboxes/{id}/watch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Watch an inbox from this device (device sessions only) */
        put: operations["watchInbox"];
        post?: never;
        /** Stop watching an inbox from this device */
        delete: operations["unwatchInbox"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inboxes/{id}/chaos": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show an inbox's fault-injection rules */
        get: operations["getInboxChaos"];
        /** Set an inbox's fault-injection rules (replaces them) */
        put: operations["setInboxChaos"];
        post?: never;
        /** Clear an inbox's fault-injection rules */
        delete: operations["clearInboxChaos"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/smtp/chaos": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show the SMTP listeners' connect-time fault-injection rules (instance operator) */
        get: operations["getSmtpChaos"];
        /** Set the SMTP listeners' connect-time fault-injection rules (replaces them; instance operator) */
        put: operations["setSmtpChaos"];
        post?: never;
        /** Clear the SMTP listeners' connect-time fault-injection rules (instance operator) */
        delete: operations["clearSmtpChaos"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** MCP server-to-client stream */
        get: operations["streamMcp"];
        put?: never;
        /** MCP endpoint (Streamable HTTP); API key as bearer token */
        post: operations["postMcp"];
        /** Close the MCP session (releases its agent session) */
        delete: operations["closeMcp"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inboxes/{id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List messages of an inbox (newest first; q searches, see docs/search.md) */
        get: operations["listInboxMessages"];
        put?: never;
        /** Import a message (message/rfc822: stored byte for byte) or compose one (JSON); see docs/import.md */
        post: operations["importInboxMessage"];
        /** Delete every message of an inbox, or with q the matching ones */
        delete: operations["deleteInboxMessages"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List (and search) the messages of every inbox of the project, newest first */
        get: operations["listMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inboxes/{id}/messages/latest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Latest message (long poll; see docs/long-poll.md; with q only a matching message counts; pattern replaces codes) */
        get: operations["getLatestInboxMessage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a message (pattern: your own regular expression replaces codes) */
        get: operations["getMessage"];
        put?: never;
        post?: never;
        /** Delete a message */
        delete: operations["deleteMessage"];
        options?: never;
        head?: never;
        /** Mark one message read or unread */
        patch: operations["updateMessage"];
        trace?: never;
    };
    "/v1/messages/{id}/html": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Sanitised HTML body of a message */
        get: operations["getMessageHtml"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{id}/raw": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Raw message (message/rfc822, exact received bytes) */
        get: operations["getMessageRaw"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{id}/attachments/{attachmentId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Download an attachment (exact bytes) */
        get: operations["getMessageAttachment"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{id}/attachments/{attachmentId}/agent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Attachment for AI agents (untrusted envelope) */
        get: operations["getMessageAttachmentForAgent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{id}/analysis/spam": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Spam score of a message from SpamAssassin's spamd (INBOXD_SPAMD; 503 analysis_unavailable without it) */
        get: operations["listMessageAnalysiSpam"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{id}/analysis/html": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Email-client support of the HTML and CSS the message uses, from caniemail's data (embedded) */
        get: operations["listMessageAnalysiHtml"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{id}/analysis/auth": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** SPF, DKIM, DMARC and ARC of a message as checked at receipt (resolvers: INBOXD_DNS_SERVERS) */
        get: operations["listMessageAnalysiAuth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{id}/analysis/links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every link and remote image of a message requested (HEAD, then GET): status and redirects; private addresses only with INBOXD_ALLOW_INTERNAL_HTTP=on */
        get: operations["listMessageAnalysiLinks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show project usage and quotas */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List agents (the Standard preset always among them) */
        get: operations["listAgents"];
        put?: never;
        /** Create an agent */
        post: operations["createAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show an agent */
        get: operations["getAgent"];
        put?: never;
        post?: never;
        /** Revoke an agent (the Standard agent cannot be revoked) */
        delete: operations["deleteAgent"];
        options?: never;
        head?: never;
        /** Update an agent */
        patch: operations["updateAgent"];
        trace?: never;
    };
    "/v1/http-origins": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List allowed HTTP origins */
        get: operations["listHttpOrigins"];
        put?: never;
        /** Allow an HTTP origin */
        post: operations["createHttpOrigin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/http-origins/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show an HTTP origin */
        get: operations["getHttpOrigin"];
        put?: never;
        post?: never;
        /** Remove an HTTP origin from the list */
        delete: operations["deleteHttpOrigin"];
        options?: never;
        head?: never;
        /** Update an HTTP origin's description */
        patch: operations["updateHttpOrigin"];
        trace?: never;
    };
    "/v1/scenario-secrets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List scenario secrets (metadata only) */
        get: operations["listScenarioSecrets"];
        put?: never;
        /** Create a scenario secret */
        post: operations["createScenarioSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/scenario-secrets/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a scenario secret's metadata */
        get: operations["getScenarioSecret"];
        put?: never;
        post?: never;
        /** Delete a scenario secret */
        delete: operations["deleteScenarioSecret"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/scenario-secrets/{id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rotate a scenario secret (version + 1) */
        post: operations["rotateScenarioSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/scenarios/schema": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** JSON Schema of the scenario definition language */
        get: operations["getScenarioDefinitionSchema"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/scenarios": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List scenarios */
        get: operations["listScenarios"];
        put?: never;
        /** Create a scenario (draft_revision 1) */
        post: operations["createScenario"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/scenarios/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a scenario */
        get: operations["getScenario"];
        put?: never;
        post?: never;
        /** Delete a scenario */
        delete: operations["deleteScenario"];
        options?: never;
        head?: never;
        /** Update a scenario draft (If-Match: draft_revision) */
        patch: operations["updateScenario"];
        trace?: never;
    };
    "/v1/scenarios/{id}/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Validate a definition (or the draft) */
        post: operations["validateScenario"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/scenarios/{id}/publish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Publish the draft as the next version (422 while invalid) */
        post: operations["publishScenario"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/scenarios/{id}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a scenario's versions */
        get: operations["listScenarioVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/scenarios/{id}/versions/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a scenario version by number */
        get: operations["getScenarioVersion"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List runs */
        get: operations["listRuns"];
        put?: never;
        /** Launch a run of a scenario's current version */
        post: operations["launchRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a run */
        get: operations["getRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a run's events (ascending sequence) */
        get: operations["listRunEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Request cancellation of a run (409 when already finished) */
        post: operations["cancelRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/signin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Redeem a one-time sign-in link for a device session
         * @description The token of a link printed by `inboxd serve` (http://HOST:PORT/#signin=TOKEN). It works once, for 15 minutes; an unknown, used or expired token is 401 invalid_signin_link.
         */
        post: operations["createSignin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** Me */
        Me: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            id: string;
            /** @example admin@localhost */
            email: string;
            name: string;
            team: {
                /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
                id: string;
                name: string;
            };
            /** @example owner */
            role: string;
        };
        /** Project */
        Project: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            id: string;
            /** @example default */
            slug: string;
            name: string;
            /** @example live */
            environment: string;
            team: {
                /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
                id: string;
                name: string;
            };
            /** @description the caller's role; null for an API key */
            role: string | null;
            /** @description e.g. {"api_keys.agent_access_enabled": true} */
            settings: {
                [key: string]: unknown;
            };
        };
        /** DeviceLogin */
        DeviceLogin: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            id: string;
            name: string;
            /** @description the session token (isd_…), shown only here */
            token: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            last_seen_at: string | null;
            /**
             * Format: date-time
             * @description when the session ends unless used again (sliding; see GET /v1/devices)
             */
            expires_at: string;
        };
        /** Device */
        Device: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            id: string;
            name: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            last_seen_at: string | null;
            /**
             * Format: date-time
             * @description when the session ends unless used again: the earlier of last use + INBOXD_DEVICE_SESSION_IDLE and log-in + INBOXD_DEVICE_SESSION_MAX
             */
            expires_at: string;
            current: boolean;
        };
        /** Alert */
        Alert: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            id: string;
            /** @description message.arrived, inbox.expiring, inbox.quota or team.quota */
            type: string;
            /** @description arrivals or failures */
            channel: string;
            /** @example success */
            severity: string;
            title: string;
            detail: string;
            /** @example inbox */
            resource_type: string;
            resource_id: string;
            inbox: {
                id: string | null;
                address: string | null;
            };
            count: number;
            /** Format: date-time */
            occurred_at: string;
            /** Format: date-time */
            read_at: string | null;
        };
        /** Webhook */
        Webhook: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            id: string;
            /** @example https://ci.example.com/hooks/inboxd */
            url: string;
            description: string | null;
            /**
             * @example [
             *       "message.received"
             *     ]
             */
            event_types: string[];
            /** @description only this inbox's events; null: every inbox */
            inbox_id: string | null;
            enabled: boolean;
            paused: boolean;
            health: {
                /** @description healthy, failing, circuit_open, paused or disabled */
                state: string;
            } & {
                [key: string]: unknown;
            };
            /** @description signing secret; only in the answers of create and rotate-secret (an Idempotency-Key replay of the create leaves it out) */
            secret?: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** WebhookDelivery */
        WebhookDelivery: {
            id: string;
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            webhook_id: string;
            event_type: string;
            status: string;
            attempt_count: number;
            attempts: {
                [key: string]: unknown;
            }[];
        } & {
            [key: string]: unknown;
        };
        /** AgentSession */
        AgentSession: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            ulid: string;
            status: string;
            /** @example mcp */
            trigger_type: string;
            scopes: string[];
        } & {
            [key: string]: unknown;
        };
        /** Approval */
        Approval: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            ulid: string;
            /** @description pending, approved, rejected or expired */
            status: string;
        } & {
            [key: string]: unknown;
        };
        /** ApiKey */
        ApiKey: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            id: string;
            /** @example ci */
            name: string;
            /** @example live */
            environment: string;
            last_four: string;
            /**
             * @example [
             *       "inboxes:read",
             *       "messages:read"
             *     ]
             */
            scopes: string[];
            /** Format: date-time */
            last_used_at: string | null;
            /** Format: date-time */
            expires_at: string | null;
            /** Format: date-time */
            revoked_at: string | null;
            /** Format: date-time */
            created_at: string;
            /**
             * @description only in the answers of create and rotate (an Idempotency-Key replay of the create leaves it out)
             * @example isk_live_…
             */
            secret?: string;
        };
        /** Domain */
        Domain: {
            id: string;
            domain: string;
            /** @description always 'normal' */
            mode: string;
            /** @description pending, verified or failed */
            status: string;
            /** Format: date-time */
            verified_at: string | null;
            /** Format: date-time */
            last_checked_at: string | null;
            /** @description why the last verification failed */
            failure_reason: string | null;
            dkim: {
                selector: string;
            };
            project: {
                id: string;
                slug: string;
            };
            records: {
                /** @description mx, spf, dkim, dmarc or ownership */
                key: string;
                /** @description MX or TXT */
                type: string;
                /** @description fully-qualified name to publish the record at */
                host: string;
                value: string;
                /** @description 10 for MX, 0 for TXT */
                priority: number;
                /** @description whether verification waits for this record */
                required: boolean;
                /** @description pending, valid, invalid, missing, error or skipped */
                status: string;
            }[];
            /** @description inbox storing mail for unknown local parts */
            catch_all_inbox_id: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** Inbox */
        Inbox: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            id: string;
            /** @example quiet-otter-42@default.inboxd.test */
            address: string;
            name: string | null;
            /**
             * @description disposable, persistent or catch_all
             * @example disposable
             */
            type: string;
            /** @example active */
            status: string;
            message_count: number;
            unread_count: number;
            pop3: {
                /** @example localhost */
                host: string;
                /** @example 9993 */
                port: number;
            };
            imap: {
                /** @example localhost */
                host: string;
                /** @example 9993 */
                port: number;
            };
            retention_days: number;
            /**
             * Format: date-time
             * @description null for a persistent mailbox
             */
            expires_at: string | null;
            /** Format: date-time */
            created_at: string;
            storage: {
                inbox: {
                    used_bytes: number;
                    quota_bytes: number;
                    /**
                     * @description normal, warning or full
                     * @example normal
                     */
                    state: string;
                };
                team: {
                    used_bytes: number;
                    quota_bytes: number;
                    /**
                     * @description normal, warning or full
                     * @example normal
                     */
                    state: string;
                };
            };
            /** @description whether the calling device watches it */
            watched: boolean;
            /** @description custom domain of a persistent mailbox */
            domain_id: string | null;
        };
        /** InboxCredentials */
        InboxCredentials: {
            username: string;
            /** @description the inbox's IMAP/POP3 password */
            password: string;
            pop3: {
                /** @example localhost */
                host: string;
                /** @example 9993 */
                port: number;
            };
            imap: {
                /** @example localhost */
                host: string;
                /** @example 9993 */
                port: number;
            };
        };
        /** ChaosRules */
        ChaosRules: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            inbox_id: string;
            rules: {
                /** @description rcpt or data */
                stage: string;
                /** @example 451 */
                code: number;
                message: string | null;
                rate: number;
                delay_ms: number;
                /** @description the SMTP reply a sender sees when the rule fires */
                reply: string;
            }[];
        };
        /** SmtpChaosRules */
        SmtpChaosRules: {
            rules: {
                /** @constant */
                stage: "connect";
                /** @description null: a slow greeting (the 220, late) */
                code: 421 | 554 | null;
                message: string | null;
                rate: number;
                delay_ms: number;
                /** @description the line a client sees when the rule fires (for a slow greeting, the greeting) */
                reply: string;
            }[];
        };
        /** UntrustedContent */
        UntrustedContent: {
            /** @example third-party-email */
            provenance: string;
            nonce: string;
            subject: string;
            text: string;
            truncated: boolean;
            links: {
                /** @example https://example.com/verify?t=abc */
                url: string;
                text: string;
            }[];
            attachment_filenames: string[];
        } & {
            [key: string]: unknown;
        };
        /**
         * Message
         * @description summary view: the common fields; full view adds to, cc, text, links, attachments, envelope…; agent view adds untrusted
         */
        Message: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            id: string;
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            inbox_id: string;
            /**
             * @description full and agent views: the IMAP mailbox it is filed in: INBOX for mail received (SMTP, import), or Sent, Trash… (docs/imap.md)
             * @example INBOX
             */
            folder?: string;
            from: {
                /** @example shop@example.com */
                email: string;
                /** @example Shop */
                name: string;
            };
            /** @example Your verification code */
            subject: string;
            preview: string;
            /**
             * @description verification codes found (or the matches of ?pattern=)
             * @example [
             *       "123456"
             *     ]
             */
            codes: string[];
            links_count: number;
            attachment_count: number;
            has_text: boolean;
            has_html: boolean;
            raw_available: boolean;
            size_bytes: number;
            logical_size_bytes: number;
            /** Format: date-time */
            received_at: string;
            /** Format: date-time */
            expires_at: string | null;
            read: boolean;
            /** @description projected subset, or every header with ?headers=full */
            headers: {
                name: string;
                value: string;
            }[];
            headers_truncated: boolean;
            /** @description full view: To addresses */
            to?: unknown[];
            /** @description full view: Cc addresses */
            cc?: unknown[];
            /** @description full view: the text body */
            text?: string | null;
            /** @description full view: links with their anchor text */
            links?: {
                /** @example https://example.com/verify?t=abc */
                url: string;
                text: string;
            }[];
            /** @description full and agent views */
            attachments?: {
                /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
                id: string;
                /** @description absent in the agent view (inside untrusted.attachment_filenames) */
                filename?: string;
                declared_content_type: string;
                served_content_type: string;
                disposition: string | null;
                content_id: string | null;
                size_bytes: number;
                /** @description lowercase hex of the exact bytes */
                sha256: string;
            }[];
            /** @description full view: Message-ID header */
            message_id?: string | null;
            /** @description full view: Date header */
            sent_at?: string | null;
            /** @description full view: the SMTP envelope */
            envelope?: {
                mail_from: string | null;
                rcpt_to: string[];
            };
            /** @description full view */
            parse_error?: string | null;
            untrusted?: components["schemas"]["UntrustedContent"];
        };
        /** HtmlBody */
        HtmlBody: {
            html: string;
            remote_blocked: number;
            truncated: boolean;
            sanitizer_version: number;
        } & {
            [key: string]: unknown;
        };
        /** AgentAttachment */
        AgentAttachment: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            id: string;
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            message_id: string;
            size_bytes: number;
            sha256: string;
        } & {
            [key: string]: unknown;
        };
        /** SpamAnalysis */
        SpamAnalysis: {
            /** @description SpamAssassin's total score */
            score: number;
            /** @description the score from which spamd calls a message spam (its required_score) */
            threshold: number;
            is_spam: boolean;
            /** @description every rule that fired, in spamd's order */
            rules: {
                /** @example MISSING_DATE */
                name: string;
                score: number;
                /** @example Missing Date: header */
                description: string;
            }[];
        };
        /**
         * SupportScore
         * @description over every (feature used, client) pair with a known caniemail result
         */
        SupportScore: {
            /** @description percent of the results that are full support */
            supported: number;
            /** @description percent that are partial support */
            partial: number;
            /** @description percent that are no support */
            unsupported: number;
        };
        /** HtmlAnalysis */
        HtmlAnalysis: {
            has_html: boolean;
            /**
             * SupportScore
             * @description over every (feature used, client) pair with a known caniemail result
             */
            score: {
                /** @description percent of the results that are full support */
                supported: number;
                /** @description percent that are partial support */
                partial: number;
                /** @description percent that are no support */
                unsupported: number;
            } | null;
            /** @description email clients (family.platform) in caniemail's data */
            clients_checked: number;
            /** @description distinct caniemail features the HTML uses */
            features_checked: number;
            /**
             * @description date of the embedded caniemail data
             * @example 2026-05-13
             */
            data_updated: string;
            note?: string;
            /** @description features some client supports partly or not at all, least supported first */
            warnings: {
                /**
                 * @description caniemail's slug
                 * @example css-display-flex
                 */
                feature: string;
                /** @example display:flex */
                title: string;
                /**
                 * @example css
                 * @example html
                 * @example image
                 * @example others
                 */
                category: string;
                /** @description the feature's caniemail.com page */
                url: string;
                score: components["schemas"]["SupportScore"];
                /** @description the clients without full support */
                clients: {
                    /** @example outlook.windows */
                    client: string;
                    /** @example Outlook Windows */
                    name: string;
                    /**
                     * @description the version or test date of the result
                     * @example 2019
                     */
                    version: string;
                    /** @enum {string} */
                    support: "partial" | "no";
                    notes: string[];
                }[];
            }[];
        };
        /** AuthAnalysis */
        AuthAnalysis: {
            /** @enum {string} */
            verdict: "pass" | "fail" | "none";
            spf: {
                /**
                 * @description the result keyword of RFC 8601: pass, fail, softfail, neutral, none, temperror, permerror, policy
                 * @example pass
                 */
                result: string;
                domain: string | null;
                comment: string | null;
            };
            /** @description one entry per DKIM-Signature header; empty when the message is not signed */
            dkim: {
                domain: string;
                selector: string;
                /**
                 * @description the result keyword of RFC 8601: pass, fail, softfail, neutral, none, temperror, permerror, policy
                 * @example pass
                 */
                result: string;
                comment: string | null;
                /** @description the signing domain aligns with the From domain (DMARC) */
                aligned: boolean;
            }[];
            dmarc: {
                /**
                 * @description the result keyword of RFC 8601: pass, fail, softfail, neutral, none, temperror, permerror, policy
                 * @example pass
                 */
                result: string;
                domain: string | null;
                /** @description the published policy: none, quarantine or reject */
                policy: string | null;
                comment: string | null;
            };
            arc: {
                /**
                 * @description the result keyword of RFC 8601: pass, fail, softfail, neutral, none, temperror, permerror, policy
                 * @example pass
                 */
                result: string;
                comment: string | null;
            };
            /** @description the SMTP client checked by SPF; null for an imported message */
            client_ip: string | null;
            helo: string | null;
            /** @description Received-SPF and Authentication-Results as a receiving server would add them */
            headers: string;
            /** Format: date-time */
            checked_at: string;
        };
        /** LinkAnalysis */
        LinkAnalysis: {
            /** @description distinct http(s) URLs, links first, in order of appearance */
            links: {
                /** @example https://shop.example/orders/4812 */
                url: string;
                /** @enum {string} */
                kind: "link" | "image";
                /** @description the last HTTP status received; null when none was */
                status: number | null;
                /** @description a 2xx at the end of the redirects */
                ok: boolean;
                /** @enum {string} */
                method: "HEAD" | "GET";
                /** @description each redirect followed: where it pointed and the status that sent there */
                redirects: {
                    url: string;
                    status: number;
                }[];
                /** @description timeout, dns, connect, tls, private_address, redirect_loop, too_many_redirects or invalid_url */
                error?: string;
                error_message?: string;
                duration_ms: number;
            }[];
            /** @description more URLs than are checked per message (200); the rest are left out */
            truncated: boolean;
        };
        /** Usage */
        Usage: {
            project: {
                /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
                id: string;
            } & {
                [key: string]: unknown;
            };
            quotas: {
                [key: string]: number;
            };
            usage: {
                [key: string]: number;
            };
        } & {
            [key: string]: unknown;
        };
        /** Agent */
        Agent: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            id: string;
            name: string;
            description: string;
            permissions: string[];
            /** @description standard for the project's preset agent */
            preset: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** HttpOrigin */
        HttpOrigin: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            id: string;
            /** @example https://api.example.com */
            origin: string;
            scheme: string;
            host: string;
            port: number;
            is_wildcard: boolean;
            description: string | null;
            /** Format: date-time */
            last_used_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** ScenarioSecret */
        ScenarioSecret: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            id: string;
            /** @example SHOP_PASSWORD */
            name: string;
            version: number;
            reference: string;
            /** Format: date-time */
            last_used_at: string | null;
            /** Format: date-time */
            rotated_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** Scenario */
        Scenario: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            id: string;
            name: string;
            draft_revision: number;
        } & {
            [key: string]: unknown;
        };
        /** ValidationResult */
        ValidationResult: {
            valid: boolean;
            errors: {
                path: string;
                code: string;
                message: string;
            }[];
            required_permissions: string[];
            has_test_mutations: boolean;
        };
        /** ScenarioVersion */
        ScenarioVersion: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            id: string;
            version: number;
        } & {
            [key: string]: unknown;
        };
        /** Run */
        Run: {
            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
            id: string;
            status: string;
        } & {
            [key: string]: unknown;
        };
        /** RunEvent */
        RunEvent: {
            id: string;
            sequence: number;
            type: string;
        } & {
            [key: string]: unknown;
        };
        /** SigninRequest */
        SigninRequest: {
            /**
             * @description the token of the sign-in link (after #signin=)
             * @example iss_…
             */
            token: string;
            /**
             * @description a name for the device session
             * @example Web UI (Chrome)
             */
            name?: string;
        };
        /** DeviceSessionCreated */
        DeviceSessionCreated: {
            /** @description the device session's id */
            id: string;
            name: string;
            /** @description the device session token (isd_…), shown only in this answer */
            token: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            last_seen_at: string;
        };
        /** SigninResponse */
        SigninResponse: {
            data: components["schemas"]["DeviceSessionCreated"];
        };
        /** Error */
        Error: {
            /**
             * @description machine-readable error code (docs/api.md)
             * @example validation_error
             */
            code: string;
            /** @example invalid query: /limit Expected integer */
            message: string;
            details: {
                [key: string]: unknown;
            };
            /**
             * @description also in the X-Request-Id header
             * @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D
             */
            request_id: string;
        };
    };
    responses: {
        /** @description The request is malformed (invalid_body, project_required, project_mismatch, …) */
        BadRequest: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "details": {},
                 *       "code": "project_required",
                 *       "message": "a device session must send X-Service-Project",
                 *       "request_id": "01JH8Z6Q2V3W4X5Y6Z7A8B9C0D"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No or bad credentials */
        Unauthorized: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "details": {},
                 *       "code": "unauthorized",
                 *       "message": "missing or invalid credentials",
                 *       "request_id": "01JH8Z6Q2V3W4X5Y6Z7A8B9C0D"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The credential may not do this (insufficient_scope, principal_not_permitted, scope_escalation) */
        Forbidden: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "details": {},
                 *       "code": "insufficient_scope",
                 *       "message": "this API key lacks the scope inboxes:write",
                 *       "request_id": "01JH8Z6Q2V3W4X5Y6Z7A8B9C0D"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No such resource in the bound project (cross-project access is 404 too) */
        NotFound: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "details": {},
                 *       "code": "not_found",
                 *       "message": "inbox not found",
                 *       "request_id": "01JH8Z6Q2V3W4X5Y6Z7A8B9C0D"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Invalid input (validation_error and other 422 codes); for validation_error, details.field names the first offending field and details.errors lists the problems as {path (JSON pointer), message} */
        ValidationError: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "details": {
                 *         "in": "query",
                 *         "errors": [
                 *           {
                 *             "path": "/limit",
                 *             "message": "must be an integer"
                 *           }
                 *         ],
                 *         "field": "limit"
                 *       },
                 *       "code": "validation_error",
                 *       "message": "invalid query: /limit must be an integer",
                 *       "request_id": "01JH8Z6Q2V3W4X5Y6Z7A8B9C0D"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The checker this analysis needs is not configured or not answering (analysis_unavailable) */
        AnalysisUnavailable: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "details": {},
                 *       "code": "analysis_unavailable",
                 *       "message": "no spam checker is configured (set INBOXD_SPAMD to spamd's host:port)",
                 *       "request_id": "01JH8Z6Q2V3W4X5Y6Z7A8B9C0D"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Too many requests */
        RateLimited: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "details": {},
                 *       "code": "rate_limited",
                 *       "message": "too many requests; retry after the delay in Retry-After",
                 *       "request_id": "01JH8Z6Q2V3W4X5Y6Z7A8B9C0D"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
        ProjectHeader: string;
        /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
        IdempotencyKey: string;
    };
    requestBodies: never;
    headers: {
        /** @description size of the caller's request bucket */
        "X-RateLimit-Limit": number;
        /** @description requests left in the bucket */
        "X-RateLimit-Remaining": number;
        /** @description seconds until the bucket is full again */
        "X-RateLimit-Reset": number;
        /** @description id of this request (also request_id of an error) */
        "X-Request-Id": string;
        /** @description seconds to wait before retrying */
        "Retry-After": number;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok" | "unavailable";
                        /** @description per check: "ok" or why it failed */
                        checks: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description Unavailable: a check failed (see checks) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok" | "unavailable";
                        /** @description per check: "ok" or why it failed */
                        checks: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok" | "unavailable";
                        /** @description per check: "ok" or why it failed */
                        checks: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description Unavailable: a check failed (see checks) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok" | "unavailable";
                        /** @description per check: "ok" or why it failed */
                        checks: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Me"];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listProjects: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Project"][];
                        meta: {
                            /** @example 50 */
                            limit: number;
                            has_more: boolean;
                        };
                        links: {
                            /** @description pass back as ?cursor= for the next page; null on the last */
                            next: string | null;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    createProject: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    slug?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Project"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    updateProject: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    settings?: {
                        [key: string]: boolean;
                    };
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Project"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listDevices: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Device"][];
                        meta: {
                            /** @example 50 */
                            limit: number;
                            has_more: boolean;
                        };
                        links: {
                            /** @description pass back as ?cursor= for the next page; null on the last */
                            next: string | null;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    logIn: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "admin@localhost",
                 *       "password": "<PASSWORD>",
                 *       "name": "laptop"
                 *     }
                 */
                "application/json": {
                    email: string;
                    password: string;
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["DeviceLogin"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    logOut: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted (no content) */
            204: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listAlerts: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                unread?: boolean;
                channel?: "arrivals" | "failures";
                type?: "message.arrived" | "inbox.expiring" | "inbox.quota" | "team.quota";
            };
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Alert"][];
                        meta: {
                            /** @example 50 */
                            limit: number;
                            has_more: boolean;
                            unread_count: number;
                        };
                        links: {
                            /** @description pass back as ?cursor= for the next page; null on the last */
                            next: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    markAlertsRead: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description omit to mark every unread alert of the project read */
                    ids?: string[];
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            unread_count: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    streamEvents: {
        parameters: {
            query?: {
                last_event_id?: string;
            };
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listWebhooks: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Webhook"][];
                        meta: {
                            /** @example 50 */
                            limit: number;
                            has_more: boolean;
                        };
                        links: {
                            /** @description pass back as ?cursor= for the next page; null on the last */
                            next: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
                /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://ci.example.com/hooks/inboxd",
                 *       "event_types": [
                 *         "message.received"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description absolute http(s) URL; must match the project's HTTP origins when it has any */
                    url: string;
                    description?: string | null;
                    /** @description events to deliver; default [message.received] */
                    event_types?: ("message.received" | "inbox.expiring" | "inbox.expired" | "run.finished" | "approval.pending")[];
                    inbox_id?: string | null;
                    /** @description a disabled webhook queues nothing; re-enabling resumes what was queued */
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Webhook"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Webhook"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted (no content) */
            204: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    updateWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description absolute http(s) URL; must match the project's HTTP origins when it has any */
                    url?: string;
                    description?: string | null;
                    /** @description events to deliver; default [message.received] */
                    event_types?: ("message.received" | "inbox.expiring" | "inbox.expired" | "run.finished" | "approval.pending")[];
                    inbox_id?: string | null;
                    /** @description a disabled webhook queues nothing; re-enabling resumes what was queued */
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Webhook"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Webhook"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                status?: "pending" | "succeeded" | "failed";
            };
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["WebhookDelivery"][];
                        meta: {
                            /** @example 50 */
                            limit: number;
                            has_more: boolean;
                        };
                        links: {
                            /** @description pass back as ?cursor= for the next page; null on the last */
                            next: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    testWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description event type */
                    event_type?: "message.received" | "inbox.expiring" | "inbox.expired" | "run.finished" | "approval.pending";
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["WebhookDelivery"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    redeliverWebhookDelivery: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["WebhookDelivery"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    pauseWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Webhook"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    resumeWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Webhook"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    openAgentSession: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
                /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description agent to act as; omitted: the project's Standard agent */
                    agent_id?: string;
                    /** @description narrow the session further (default: credential ∩ agent) */
                    scopes?: string[];
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["AgentSession"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    releaseAgentSession: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["AgentSession"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listApprovals: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                status?: string;
            };
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Approval"][];
                        meta: {
                            /** @example 50 */
                            limit: number;
                            has_more: boolean;
                        };
                        links: {
                            /** @description pass back as ?cursor= for the next page; null on the last */
                            next: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    approveApproval: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Approval"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    rejectApproval: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description at most 500 characters */
                    reason?: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Approval"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listApiKeys: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ApiKey"][];
                        meta: {
                            /** @example 50 */
                            limit: number;
                            has_more: boolean;
                        };
                        links: {
                            /** @description pass back as ?cursor= for the next page; null on the last */
                            next: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
                /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "ci",
                 *       "scopes": [
                 *         "inboxes:write",
                 *         "messages:read"
                 *       ]
                 *     }
                 */
                "application/json": {
                    name: string;
                    /** @description subset of the caller's scopes; omitted: the caller's own set */
                    scopes?: string[];
                    expires_at?: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ApiKey"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getApiKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ApiKey"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            revoked: boolean;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    rotateApiKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ApiKey"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listDomains: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Domain"][];
                        meta: {
                            limit: number;
                            has_more: boolean;
                        } & {
                            [key: string]: unknown;
                        };
                        links: {
                            next: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    createDomain: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
                /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "domain": "mail.example.com"
                 *     }
                 */
                "application/json": {
                    /** @description e.g. mail.example.com; lower-cased, trailing dot stripped, IDN to punycode */
                    domain: string;
                    catch_all_inbox_id?: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Domain"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getDomain: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Domain"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    deleteDomain: {
        parameters: {
            query?: {
                force?: boolean;
            };
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted (no content) */
            204: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    verifyDomain: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Domain"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    setDomainCatchAll: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description null turns the catch-all off */
                    inbox_id: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Domain"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listInboxes: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                type?: "disposable" | "persistent" | "catch_all";
            };
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Inbox"][];
                        meta: {
                            /** @example 50 */
                            limit: number;
                            has_more: boolean;
                        };
                        links: {
                            /** @description pass back as ?cursor= for the next page; null on the last */
                            next: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    createInbox: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
                /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "name": "signup test",
                 *       "ttl_seconds": 3600
                 *     }
                 */
                "application/json": {
                    /** @description at most 100 characters */
                    name?: string | null;
                    /** @description 60..2592000; lifetime from now */
                    ttl_seconds?: number | null;
                    /** @description custom domain: a persistent mailbox; requires local_part */
                    domain_id?: string;
                    /** @description at most 64 characters */
                    local_part?: string;
                    /** @description watch from the calling device (device sessions only) */
                    watch?: boolean;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Inbox"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getInbox: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Inbox"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    deleteInbox: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted (no content) */
            204: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    updateInbox: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description at most 100 characters */
                    name?: string | null;
                    /** @description >= 1; counts from now, clamped to the plan's ceiling */
                    ttl_seconds?: number;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Inbox"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getInboxCredentials: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["InboxCredentials"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    createInboxCredentialRotate: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["InboxCredentials"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    markInboxRead: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description every message up to and including this id becomes read */
                    last_read_ulid: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
                            last_read_ulid: string;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    watchInbox: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @example 01JH8Z6Q2V3W4X5Y6Z7A8B9C0D */
                            inbox_id: string;
                            watched: boolean;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    unwatchInbox: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted (no content) */
            204: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getInboxChaos: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ChaosRules"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    setInboxChaos: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
                /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description at most 10, tried in order per stage; empty: no fault injection */
                    rules: {
                        /** @description rcpt: the RCPT TO of this inbox's address is refused; data: the whole message is refused at the end of DATA */
                        stage: "rcpt" | "data";
                        /** @description SMTP reply code 400..599 (4xx: temporary, the sender retries; 5xx: permanent) */
                        code: number;
                        /** @description reply text, 1..200 printable ASCII characters; may start with an enhanced status code of the same class (default: a text naming inboxd chaos) */
                        message?: string | null;
                        /** @description probability 0..1 that the rule fires for one RCPT or one message (default 1) */
                        rate?: number;
                        /** @description 0..30000: the failure reply is sent this late (only when the rule fires) */
                        delay_ms?: number;
                    }[];
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ChaosRules"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    clearInboxChaos: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted (no content) */
            204: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getSmtpChaos: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["SmtpChaosRules"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    setSmtpChaos: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
                /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description at most 10, tried in order; empty: greetings as usual */
                    rules: {
                        /** @description "connect" (the only stage): when a client connects, before the greeting */
                        stage: string;
                        /** @description 421: refused, the connection is closed (a sender retries later); 554: no service, every command but QUIT gets 503; null or absent: the usual 220, delay_ms late */
                        code?: number | null;
                        /** @description reply text of a 421 or 554, 1..200 printable ASCII characters; may start with an enhanced status code of the same class (default: a text naming inboxd chaos) */
                        message?: string | null;
                        /** @description probability 0..1 that the rule fires for one connection (default 1) */
                        rate?: number;
                        /** @description 0..30000: the greeting or refusal is sent this late; above 0 when there is no code */
                        delay_ms?: number;
                    }[];
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["SmtpChaosRules"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    clearSmtpChaos: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted (no content) */
            204: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    streamMcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
        };
    };
    postMcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
        };
    };
    closeMcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted (no content) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
        };
    };
    listInboxMessages: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                view?: "summary" | "full" | "agent";
                headers?: "projected" | "full";
                q?: string;
                folder?: string;
                wait?: number;
                min?: number;
            };
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Message"][];
                        meta: {
                            /** @example 50 */
                            limit: number;
                            has_more: boolean;
                            /** @description with wait: false when wait ran out before min matches */
                            complete?: boolean;
                        };
                        links: {
                            /** @description pass back as ?cursor= for the next page; null on the last */
                            next: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    importInboxMessage: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
                /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "message/rfc822": string;
                "application/json": {
                    /** @description sender, e.g. Shop <shop@example.com> */
                    from: string;
                    /** @description To header; default the inbox address */
                    to?: string | string[];
                    subject: string;
                    /** @description text body (give text, html or both) */
                    text?: string;
                    /** @description HTML body */
                    html?: string;
                    attachments?: {
                        filename: string;
                        /** @description default application/octet-stream */
                        content_type?: string;
                        /** @description the bytes, base64 */
                        content_base64: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Message"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    deleteInboxMessages: {
        parameters: {
            query?: {
                q?: string;
                folder?: string;
            };
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted (no content) */
            204: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listMessages: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                view?: "summary" | "full" | "agent";
                headers?: "projected" | "full";
                q?: string;
                folder?: string;
                wait?: number;
                min?: number;
            };
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Message"][];
                        meta: {
                            /** @example 50 */
                            limit: number;
                            has_more: boolean;
                            /** @description with wait: false when wait ran out before min matches */
                            complete?: boolean;
                        };
                        links: {
                            /** @description pass back as ?cursor= for the next page; null on the last */
                            next: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getLatestInboxMessage: {
        parameters: {
            query?: {
                wait?: number;
                after?: string;
                poll_token?: string;
                view?: "summary" | "full" | "agent";
                headers?: "projected" | "full";
                q?: string;
                folder?: string;
                pattern?: string;
            };
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Message"];
                        meta: {
                            /** @description pass back as ?poll_token= to wait for the next message */
                            poll_token: string;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getMessage: {
        parameters: {
            query?: {
                view?: "summary" | "full" | "agent";
                headers?: "projected" | "full";
                pattern?: string;
            };
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Message"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    deleteMessage: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted (no content) */
            204: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    updateMessage: {
        parameters: {
            query?: {
                headers?: "projected" | "full";
            };
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description mark the message read (true) or unread (false) */
                    read: boolean;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Message"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getMessageHtml: {
        parameters: {
            query?: {
                remote?: "strip" | "allow";
                headers?: "projected" | "full";
            };
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["HtmlBody"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getMessageRaw: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "message/rfc822": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getMessageAttachment: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
                attachmentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getMessageAttachmentForAgent: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
                attachmentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["AgentAttachment"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listMessageAnalysiSpam: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["SpamAnalysis"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["AnalysisUnavailable"];
        };
    };
    listMessageAnalysiHtml: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["HtmlAnalysis"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["AnalysisUnavailable"];
        };
    };
    listMessageAnalysiAuth: {
        parameters: {
            query?: never;
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["AuthAnalysis"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["AnalysisUnavailable"];
        };
    };
    listMessageAnalysiLinks: {
        parameters: {
            query?: {
                refresh?: "true" | "false";
            };
            header?: {
                "X-Service-Agent-Session"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["LinkAnalysis"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["AnalysisUnavailable"];
        };
    };
    getUsage: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Usage"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listAgents: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Agent"][];
                        meta: {
                            /** @example 50 */
                            limit: number;
                            has_more: boolean;
                        };
                        links: {
                            /** @description pass back as ?cursor= for the next page; null on the last */
                            next: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    createAgent: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
                /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description 1..100 characters */
                    name: string;
                    description?: string;
                    /** @description scopes of the API-key vocabulary; at most the caller's own */
                    permissions: string[];
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Agent"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getAgent: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Agent"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    deleteAgent: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted (no content) */
            204: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    updateAgent: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    name?: string;
                    description?: string;
                    /** @description scopes of the API-key vocabulary; at most the caller's own */
                    permissions?: string[];
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Agent"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listHttpOrigins: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["HttpOrigin"][];
                        meta: {
                            /** @example 50 */
                            limit: number;
                            has_more: boolean;
                        };
                        links: {
                            /** @description pass back as ?cursor= for the next page; null on the last */
                            next: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    createHttpOrigin: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
                /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description scheme://host[:port], e.g. https://app.example.com or https://*.example.com */
                    origin: string;
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["HttpOrigin"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getHttpOrigin: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["HttpOrigin"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    deleteHttpOrigin: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted (no content) */
            204: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    updateHttpOrigin: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    description: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["HttpOrigin"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listScenarioSecrets: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ScenarioSecret"][];
                        meta: {
                            /** @example 50 */
                            limit: number;
                            has_more: boolean;
                        };
                        links: {
                            /** @description pass back as ?cursor= for the next page; null on the last */
                            next: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    createScenarioSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
                /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description letters, digits, _ (1..64); referenced as ${secrets.NAME} */
                    name: string;
                    /** @description the secret; never returned */
                    value: string;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ScenarioSecret"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getScenarioSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ScenarioSecret"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    deleteScenarioSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted (no content) */
            204: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    rotateScenarioSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    value: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ScenarioSecret"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getScenarioDefinitionSchema: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description JSON Schema of a scenario definition */
                        data: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listScenarios: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Scenario"][];
                        meta: {
                            /** @example 50 */
                            limit: number;
                            has_more: boolean;
                        };
                        links: {
                            /** @description pass back as ?cursor= for the next page; null on the last */
                            next: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    createScenario: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
                /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    description?: string;
                    /** @description scenario definition (GET /v1/scenarios/schema; docs/scenarios.md) */
                    draft_definition?: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Scenario"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getScenario: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Scenario"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    deleteScenario: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted (no content) */
            204: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    updateScenario: {
        parameters: {
            query?: never;
            header?: {
                "If-Match"?: string;
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    name?: string;
                    description?: string;
                    /** @description scenario definition (GET /v1/scenarios/schema; docs/scenarios.md) */
                    draft_definition?: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Scenario"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    validateScenario: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description a definition to check; omitted: the draft */
                    definition?: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ValidationResult"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    publishScenario: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
                /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ScenarioVersion"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listScenarioVersions: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ScenarioVersion"][];
                        meta: {
                            /** @example 50 */
                            limit: number;
                            has_more: boolean;
                        };
                        links: {
                            /** @description pass back as ?cursor= for the next page; null on the last */
                            next: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getScenarioVersion: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
                version: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ScenarioVersion"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listRuns: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                status?: string;
            };
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Run"][];
                        meta: {
                            /** @example 50 */
                            limit: number;
                            has_more: boolean;
                        };
                        links: {
                            /** @description pass back as ?cursor= for the next page; null on the last */
                            next: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    launchRun: {
        parameters: {
            query?: {
                wait?: number;
            };
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
                /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description the agent whose permissions the run executes under */
                    agent_id: string;
                    /** @description the scenario; its current (latest published) version runs */
                    scenario_id: string;
                    /** @description the scenario's input names and their values */
                    inputs?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Run"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    getRun: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Run"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    listRunEvents: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["RunEvent"][];
                        meta: {
                            /** @example 50 */
                            limit: number;
                            has_more: boolean;
                        };
                        links: {
                            /** @description pass back as ?cursor= for the next page; null on the last */
                            next: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    cancelRun: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Run"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
    createSignin: {
        parameters: {
            query?: never;
            header?: {
                /** @description project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch */
                "X-Service-Project"?: components["parameters"]["ProjectHeader"];
                /** @description 1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SigninRequest"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SigninResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
        };
    };
}
