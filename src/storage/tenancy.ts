// The tenancy capability's repositories: what its services keep, as typed records and small
// interfaces. Engines implement them in src/storage/<engine>/tenancy.ts.

export type TeamRole = "owner" | "admin" | "member";

export interface TeamRecord {
  id: string;
  name: string;
  plan: string;
  usedBytes: number;
  createdAt: string;
}

export interface UserRecord {
  id: string;
  teamId: string;
  email: string;
  name: string;
  passwordHash: string;
  role: TeamRole;
  createdAt: string;
}

export interface ProjectRecord {
  id: string;
  teamId: string;
  slug: string;
  name: string;
  environment: string;
  settings: Record<string, unknown>;
  createdAt: string;
}

export interface DeviceSessionRecord {
  id: string;
  userId: string;
  name: string;
  tokenHash: string;
  createdAt: string;
  lastSeenAt: string | null;
}

/** A one-time web UI sign-in link (only its hash is kept); redeemed once, before expiresAt. */
export interface SigninTokenRecord {
  tokenHash: string;
  userId: string;
  createdAt: string;
  expiresAt: string;
}

export interface ApiKeyRecord {
  id: string;
  projectId: string;
  name: string;
  environment: string;
  secretHash: string;
  lastFour: string;
  scopes: string[];
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  createdAt: string;
}

export interface IdempotencyRecord {
  principalId: string;
  route: string;
  key: string;
  bodyHash: string;
  status: number;
  /** The stored response body (JSON text). */
  body: string;
  createdAt: string;
}

/** The real counts GET /v1/usage shows against the plan's quotas. */
export interface UsageCounts {
  teamUsedBytes: number;
  teamCreatedAt: string;
  teamInboxes: number;
  projectInboxes: number;
  projectMessages: number;
  teamMembers: number;
  projectStorageBytes: number;
  teamCustomDomains: number;
  /** Keys of the project not revoked. */
  projectApiKeys: number;
}

export interface TeamRepository {
  /** Whether any team exists (an empty data directory has none). */
  any(): Promise<boolean>;
  byId(id: string): Promise<TeamRecord | null>;
  byName(name: string): Promise<TeamRecord | null>;
  insert(r: TeamRecord): Promise<void>;
}

export interface UserRepository {
  byId(id: string): Promise<UserRecord | null>;
  /** Exact match on the stored (lower-case) email. */
  byEmail(email: string): Promise<UserRecord | null>;
  /** Every user of every team, oldest first (for `inboxd user list`). */
  all(): Promise<UserRecord[]>;
  insert(r: UserRecord): Promise<void>;
  setPasswordHash(id: string, passwordHash: string): Promise<void>;
}

export interface ProjectRepository {
  byId(id: string): Promise<ProjectRecord | null>;
  /** The project with its team's plan. */
  withPlan(id: string): Promise<{ project: ProjectRecord; plan: string } | null>;
  slugTaken(slug: string): Promise<boolean>;
  /** The oldest project of the team with this name (null: no such team or no project). */
  firstOfTeamNamed(teamName: string): Promise<ProjectRecord | null>;
  /** The team's projects (only `onlyId` when given), newest first, ids below `before`; at most `limit`. */
  listForTeam(teamId: string, onlyId: string | null, before: string | null, limit: number): Promise<ProjectRecord[]>;
  insert(r: ProjectRecord): Promise<void>;
  update(id: string, patch: { name: string; settings: Record<string, unknown> }): Promise<void>;
}

export interface DeviceSessionRepository {
  /** The session holding this token hash, with its user. */
  byTokenHash(tokenHash: string): Promise<{ session: DeviceSessionRecord; user: UserRecord } | null>;
  /** The user's sessions, newest first, ids below `before`; at most `limit`. */
  listForUser(userId: string, before: string | null, limit: number): Promise<DeviceSessionRecord[]>;
  insert(r: DeviceSessionRecord): Promise<void>;
  touch(id: string, at: string): Promise<void>;
  /** Deletes the user's session; false when the user has no such session. */
  deleteForUser(userId: string, id: string): Promise<boolean>;
  /** Deletes every session of the user (a password reset logs them all out); returns how many. */
  deleteAllForUser(userId: string): Promise<number>;
  /** Deletes the user's sessions last used before `idleBefore` or created before `createdBefore`. */
  deleteExpiredForUser(userId: string, idleBefore: string, createdBefore: string): Promise<number>;
}

export interface SigninTokenRepository {
  insert(r: SigninTokenRecord): Promise<void>;
  /** Deletes the token and returns its user when it exists and is unexpired at `now` (single use); prunes expired ones. */
  consume(tokenHash: string, now: string): Promise<string | null>;
}

export interface ApiKeyRepository {
  /** The key holding this secret hash, with the team of its project. */
  bySecretHash(secretHash: string): Promise<{ key: ApiKeyRecord; teamId: string } | null>;
  secretHashExists(secretHash: string): Promise<boolean>;
  inProject(projectId: string, id: string): Promise<ApiKeyRecord | null>;
  /** The project's keys, newest first, ids below `before`; at most `limit`. */
  listInProject(projectId: string, before: string | null, limit: number): Promise<ApiKeyRecord[]>;
  insert(r: ApiKeyRecord): Promise<void>;
  revoke(id: string, at: string): Promise<void>;
  replaceSecret(id: string, secretHash: string, lastFour: string): Promise<void>;
  touch(id: string, at: string): Promise<void>;
}

export interface IdempotencyKeyRepository {
  /** The stored response for (principal, route, key) if it was stored after `since`. */
  find(principalId: string, route: string, key: string, since: string): Promise<IdempotencyRecord | null>;
  /** Stores (or replaces) the response of (principal, route, key). */
  put(r: IdempotencyRecord): Promise<void>;
  /** Deletes the records stored at or before `before`; returns how many. */
  prune(before: string): Promise<number>;
}

export interface UsageRepository {
  /** null when the team does not exist. */
  counts(teamId: string, projectId: string): Promise<UsageCounts | null>;
}

export interface TenancyRepositories {
  teams: TeamRepository;
  users: UserRepository;
  projects: ProjectRepository;
  devices: DeviceSessionRepository;
  signinTokens: SigninTokenRepository;
  apiKeys: ApiKeyRepository;
  idempotencyKeys: IdempotencyKeyRepository;
  usage: UsageRepository;
}
