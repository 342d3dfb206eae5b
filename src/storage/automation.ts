// The automation capability's repositories: what its services keep, as typed records and small
// interfaces. Engines implement them in src/storage/<engine>/: agents.ts, scenarios.ts, runs.ts,
// assembled by automation.ts.
//
// Records keep the snake_case shape the services and their views read. JSON-valued fields
// (permissions, steps, payload …) are kept as JSON text; booleans as 0/1.

// ---------------------------------------------------------------------------------------------
// Agents

export interface AgentRow {
  id: string;
  project_id: string;
  name: string;
  description: string;
  /** JSON array of scopes. */
  permissions: string;
  preset: string | null;
  revoked_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface AgentRepository {
  /**
   * The project's live Standard-preset agent, inserting `candidate` first when there is none
   * (two concurrent first uses still end with one agent).
   */
  ensureStandard(candidate: AgentRow): Promise<AgentRow>;
  insert(r: AgentRow): Promise<void>;
  /** Live agents of the project, newest first, ids below `before` when given; at most `limit`. */
  listLive(projectId: string, before: string | null, limit: number): Promise<AgentRow[]>;
  /** The agent if it belongs to the project and is not revoked. */
  liveInProject(projectId: string, id: string): Promise<AgentRow | null>;
  /** The agent if it belongs to the project, revoked or not. */
  inProject(projectId: string, id: string): Promise<AgentRow | null>;
  byId(id: string): Promise<AgentRow | null>;
  update(id: string, fields: Pick<AgentRow, "name" | "description" | "permissions" | "updated_at">): Promise<void>;
  revoke(id: string, at: string): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Allowed HTTP origins

export interface OriginRow {
  id: string;
  project_id: string;
  origin: string;
  scheme: string;
  host: string;
  port: number;
  is_wildcard: number;
  description: string | null;
  last_used_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface OriginRepository {
  /** False when the project already lists the same origin (nothing is written then). */
  insertIfAbsent(r: OriginRow): Promise<boolean>;
  idByOrigin(projectId: string, origin: string): Promise<string | null>;
  /** Newest first, ids below `before` when given; at most `limit`. */
  list(projectId: string, before: string | null, limit: number): Promise<OriginRow[]>;
  /** Every origin of the project, exact entries before wildcards, then by id. */
  allForMatching(projectId: string): Promise<OriginRow[]>;
  inProject(projectId: string, id: string): Promise<OriginRow | null>;
  updateDescription(id: string, description: string | null, updatedAt: string): Promise<void>;
  /** False when there was no such origin in the project. */
  delete(projectId: string, id: string): Promise<boolean>;
  touch(id: string, at: string): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Scenario secrets

export interface SecretRow {
  id: string;
  project_id: string;
  name: string;
  /** The sealed value. */
  value_enc: string;
  version: number;
  last_used_at: string | null;
  rotated_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ScenarioSecretRepository {
  /** False when the project already has a secret of that name (nothing is written then). */
  insertIfAbsent(r: SecretRow): Promise<boolean>;
  /** Newest first, ids below `before` when given; at most `limit`. */
  list(projectId: string, before: string | null, limit: number): Promise<SecretRow[]>;
  inProject(projectId: string, id: string): Promise<SecretRow | null>;
  /** Replaces the sealed value, version + 1; the secret as it is after, or null when absent. */
  rotate(projectId: string, id: string, valueEnc: string, at: string): Promise<SecretRow | null>;
  delete(projectId: string, id: string): Promise<boolean>;
  names(projectId: string): Promise<string[]>;
  /** Sealed values of those of the names that exist, marked used at `at`. */
  takeForUse(projectId: string, names: string[], at: string): Promise<Array<{ name: string; value_enc: string }>>;
}

// ---------------------------------------------------------------------------------------------
// Scenarios and their published versions

export interface ScenarioRow {
  id: string;
  project_id: string;
  name: string;
  description: string;
  draft_definition: string;
  draft_revision: number;
  current_version_id: string | null;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ScenarioRepository {
  insert(r: ScenarioRow): Promise<void>;
  /** Live (not deleted) scenarios, newest first, ids below `before` when given; at most `limit`. */
  listLive(projectId: string, before: string | null, limit: number): Promise<ScenarioRow[]>;
  liveInProject(projectId: string, id: string): Promise<ScenarioRow | null>;
  /** Writes the draft (revision + 1) if its revision is still `expectedRevision`; the row after, or null. */
  updateDraft(
    id: string,
    expectedRevision: number,
    fields: Pick<ScenarioRow, "name" | "description" | "draft_definition" | "updated_at">,
  ): Promise<ScenarioRow | null>;
  /** False when there was no live scenario of that id in the project. */
  softDelete(projectId: string, id: string, at: string): Promise<boolean>;
  setCurrentVersion(id: string, versionId: string, at: string): Promise<void>;
}

export interface VersionRow {
  id: string;
  scenario_id: string;
  project_id: string;
  version: number;
  schema_version: number;
  definition: string;
  definition_hash: string;
  required_permissions: string;
  has_test_mutations: number;
  published_at: string;
}

export interface ScenarioVersionRepository {
  /** The highest version number of the scenario, or null before the first publish. */
  latestNumber(scenarioId: string): Promise<number | null>;
  insert(v: VersionRow): Promise<void>;
  /** Newest first, ids below `before` when given; at most `limit`. */
  list(scenarioId: string, before: string | null, limit: number): Promise<VersionRow[]>;
  byNumber(scenarioId: string, version: number): Promise<VersionRow | null>;
  byId(id: string): Promise<VersionRow | null>;
}

// ---------------------------------------------------------------------------------------------
// Runs (scenario runs and MCP agent-session runs alike)

export type RunStatus = "queued" | "running" | "awaiting_approval" | "succeeded" | "failed" | "cancelled" | "timed_out";

export interface RunRow {
  id: string;
  project_id: string;
  agent_id: string;
  agent_name: string;
  scenario_id: string | null;
  scenario_name: string;
  version_id: string | null;
  version: number;
  trigger_type: string;
  trigger: string;
  status: RunStatus;
  inputs: string;
  current_step_index: number;
  step_count: number;
  steps: string;
  outputs: string;
  approved_step_index: number | null;
  failed_assertions: string;
  error_code: string | null;
  error_message: string | null;
  finishing_status: string | null;
  cleanup_status: string;
  cleanup_error: string | null;
  cancel_requested: number;
  claimed_by: string | null;
  claimed_until: string | null;
  deadline_at: string | null;
  launched_by_user: string | null;
  started_at: string | null;
  finished_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A run as it is created; every other field starts at its default (no claim, nothing finished). */
export type NewRun = Pick<
  RunRow,
  | "id"
  | "project_id"
  | "agent_id"
  | "agent_name"
  | "scenario_id"
  | "scenario_name"
  | "version_id"
  | "version"
  | "trigger_type"
  | "trigger"
  | "status"
  | "inputs"
  | "step_count"
  | "steps"
  | "launched_by_user"
  | "started_at"
  | "created_at"
  | "updated_at"
>;

export interface RunRepository {
  insert(r: NewRun): Promise<void>;
  byId(id: string): Promise<RunRow | null>;
  inProject(projectId: string, id: string): Promise<RunRow | null>;
  /** Newest first; any of `statuses` (all when empty); ids below `before` when given; at most `limit`. */
  list(projectId: string, statuses: string[], before: string | null, limit: number): Promise<RunRow[]>;
  /** Sets cancel_requested; true only for the call that set it. */
  requestCancel(id: string, at: string): Promise<boolean>;

  // The executor's leases. A run is worked on by the worker whose claim is current.
  /** Queued or running scenario runs whose lease is free or lapsed at `now`, by id; at most `limit`. */
  claimable(now: string, limit: number): Promise<string[]>;
  /**
   * The one statement that decides which worker gets a run: takes the lease (claimed_by = worker,
   * claimed_until = until) of a scenario run in one of `statuses` whose lease is free or lapsed
   * at `now`. The run after, or null when someone else holds it or it is in another status.
   */
  claim(id: string, statuses: string[], worker: string, until: string, now: string): Promise<RunRow | null>;
  /** Extends the worker's lease; null when it no longer holds it. */
  renewLease(id: string, worker: string, until: string): Promise<{ cancel_requested: number } | null>;
  /** Gives the lease back (shutdown). */
  releaseLease(id: string, worker: string): Promise<void>;

  // Progress of a scenario run.
  markStarted(id: string, startedAt: string, deadlineAt: string, at: string): Promise<void>;
  saveProgress(id: string, p: { steps: string; outputs: string; current_step_index: number; at: string }): Promise<void>;
  /** Parks the run for approval and drops the worker's lease. */
  park(id: string, worker: string, at: string): Promise<void>;
  /** An approval granted: the parked run runs again (lease still free); false when not parked any more. */
  unpark(id: string, deadlineAt: string | null, at: string): Promise<boolean>;
  /** Records the status a run is ending with, before its cleanup. */
  markFinishing(
    id: string,
    f: { status: string; error_code: string | null; error_message: string | null; steps: string; failed_assertions: string; at: string },
  ): Promise<void>;
  /** Makes the status terminal (finished_at = at) and drops the lease. */
  markFinished(id: string, f: { status: string; cleanup_status: string; cleanup_error: string | null; at: string }): Promise<void>;

  // Agent-session runs.
  /** One more call recorded as a step. */
  countSessionCall(id: string, at: string): Promise<void>;
  /** Ends a session's run: `status` if it is still queued or running, with the cleanup outcome. */
  endSession(id: string, f: { status: string; cleanup_status: string; cleanup_error: string | null; at: string }): Promise<void>;
}

export interface RunEventRow {
  id: string;
  run_id: string;
  project_id: string;
  sequence: number;
  type: string;
  /** JSON. */
  payload: string;
  occurred_at: string;
}

export interface RunEventRepository {
  /** Appends with the run's next sequence number (atomically). */
  append(e: Omit<RunEventRow, "sequence">): Promise<void>;
  /** The sequence of an event of the run, or null. */
  sequenceOf(runId: string, eventId: string): Promise<number | null>;
  /** Events with a sequence above `after`, ascending; at most `limit`. */
  after(runId: string, after: number, limit: number): Promise<RunEventRow[]>;
}

export interface LedgerEntry {
  id: string;
  run_id: string;
  project_id: string;
  resource_type: string;
  resource_id: string;
  created_at: string;
  removed_at: string | null;
  error: string | null;
}

/** A run's cleanup ledger (run_cleanup). */
export interface RunLedgerRepository {
  add(e: Omit<LedgerEntry, "removed_at" | "error">): Promise<void>;
  /** Every entry of the run. */
  ofRun(runId: string): Promise<LedgerEntry[]>;
  markRemoved(id: string, at: string): Promise<void>;
  /** The run removed the resource itself: its open entries for it are marked removed. */
  markResourceRemoved(runId: string, resourceType: string, resourceId: string, at: string): Promise<void>;
  markFailed(id: string, error: string): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// MCP agent sessions

export interface AgentSessionRow {
  id: string;
  project_id: string;
  principal_kind: string;
  principal_id: string;
  agent_id: string;
  run_id: string;
  /** JSON array of scopes. */
  scopes: string;
  status: "open" | "released" | "expired";
  expires_at: string;
  released_at: string | null;
  created_at: string;
}

export interface AgentSessionRepository {
  insert(r: Omit<AgentSessionRow, "status" | "released_at">): Promise<void>;
  byId(id: string): Promise<AgentSessionRow | null>;
  inProject(projectId: string, id: string): Promise<AgentSessionRow | null>;
  /** Moves an open session to `status`; false when it was not open any more. */
  close(id: string, status: "released" | "expired", at: string): Promise<boolean>;
  /** Open sessions whose expires_at is at or before `now`; at most `limit`. */
  due(now: string, limit: number): Promise<Array<{ id: string; project_id: string }>>;
  /** Open sessions opened by this principal (an API key or a device session). */
  openOfPrincipal(kind: string, principalId: string): Promise<Array<{ id: string; project_id: string }>>;
}

// ---------------------------------------------------------------------------------------------
// Approvals

export type ApprovalStatus = "pending" | "approved" | "rejected" | "expired";

export interface ApprovalRow {
  id: string;
  project_id: string;
  run_id: string;
  step_index: number;
  status: ApprovalStatus;
  action: string;
  target_resource_type: string;
  target_resource_id: string;
  binding_snapshot: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  decision_reason: string | null;
  self_approved: number;
  created_at: string;
}

export interface ApprovalRepository {
  pendingFor(runId: string, stepIndex: number): Promise<ApprovalRow | null>;
  /** Inserts a pending approval. */
  insert(r: ApprovalRow): Promise<void>;
  inProject(projectId: string, id: string): Promise<ApprovalRow | null>;
  /** Newest first; of `status` when given; ids below `before` when given; at most `limit`. */
  list(projectId: string, status: string | null, before: string | null, limit: number): Promise<ApprovalRow[]>;
  /** Decides a pending approval not yet expired at `at`; false when it was not (lost race). */
  decide(
    id: string,
    d: { status: "approved" | "rejected"; decided_by: string | null; decision_reason: string | null; self_approved: number; at: string },
  ): Promise<boolean>;
  /** Pending approvals of the run become expired with `reason`; how many. */
  closeForRun(runId: string, reason: string): Promise<number>;
  /** Pending approvals past expires_at become expired; the run ids they belonged to. */
  expireDue(now: string): Promise<string[]>;
  /** Pending approvals whose run has already ended become expired ("run ended"). */
  closeOrphaned(): Promise<void>;
}

export interface AutomationRepositories {
  agents: AgentRepository;
  origins: OriginRepository;
  scenarioSecrets: ScenarioSecretRepository;
  scenarios: ScenarioRepository;
  scenarioVersions: ScenarioVersionRepository;
  runs: RunRepository;
  runEvents: RunEventRepository;
  runLedger: RunLedgerRepository;
  agentSessions: AgentSessionRepository;
  approvals: ApprovalRepository;
}
