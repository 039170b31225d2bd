import type { Generated, Kysely } from 'kysely';
import type { LogLevel } from '../../contracts/logLevels';
import type { Role } from '../../contracts/roles';

// Row types of the store. Booleans are 0/1 integers and timestamps ISO-8601 strings so the same
// columns work on SQLite and PostgreSQL; repositories turn rows into domain objects.

export type Flag = 0 | 1;

export interface UsersTable {
  id: string;
  /** Always lower case; unique. */
  email: string;
  password_hash: string;
  role: Role;
  email_confirmed: Flag;
  two_factor_enabled: Flag;
  two_factor_secret: string | null;
  access_failed_count: number;
  lockout_end: string | null;
  disabled: Flag;
  /** Changes whenever credentials change, so outstanding e-mail codes stop working. */
  security_stamp: string;
  created_at: string;
  last_login_at: string | null;
  /** The authenticator step of the last accepted code; only later steps are accepted (no replay). */
  two_factor_last_step: number | null;
}

export type SessionKind = 'cookie' | 'access' | 'refresh';

export interface SessionsTable {
  /** sha256 hex of the token; the token itself is never stored. */
  id: string;
  user_id: string;
  kind: SessionKind;
  persistent: Flag;
  created_at: string;
  expires_at: string;
  last_seen_at: string;
  user_agent: string | null;
  ip: string | null;
  /** The sign-in a bearer (access or refresh) session descends from; null for cookie sessions. */
  family_id: string | null;
  /** When a refresh token was exchanged; presenting it again revokes its family. */
  consumed_at: string | null;
}

export type TokenPurpose = 'confirm' | 'reset' | 'change-email';

/** A code e-mailed to a user; single use, expiring, and void once the user's security stamp changes. */
export interface TokensTable {
  id: string;
  user_id: string;
  purpose: TokenPurpose;
  /** sha256 hex of the code. */
  hash: string;
  /** The address the code was sent to (for change-email, the new address). */
  email: string;
  /** The user's security stamp when the code was issued. */
  stamp: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface RecoveryCodesTable {
  id: string;
  user_id: string;
  /** sha256 hex of the normalized code. */
  hash: string;
  created_at: string;
  used_at: string | null;
}

/** Every e-mail Warden wrote, sent or not (without SMTP it is the only place to read them). */
export interface OutboxTable {
  id: string;
  at: string;
  to: string;
  subject: string;
  text: string;
  sent: Flag;
  error: string | null;
}

export type AuditOutcome = 'success' | 'failure';

export interface AuditEntriesTable {
  id: string;
  at: string;
  user_id: string | null;
  action: string;
  target: string | null;
  outcome: AuditOutcome;
  /** JSON object text. */
  detail: string | null;
  ip: string | null;
}

export interface GroupsTable {
  id: string;
  name: string;
  /** The name lower-cased; unique, so names differing only in case collide on both dialects. */
  name_key: string;
  description: string;
  created_at: string;
  /** Quota (DESIGN §10): at most this many instances; null is unlimited. */
  max_instances: number | null;
  /** Quota: at most this many bytes of kept backups of the group's instances; null is unlimited. */
  max_backup_bytes: number | null;
  /** Process limits of each instance of the group (DESIGN §11); null is the server's default. */
  max_processes: number | null;
  max_open_files: number | null;
  max_memory_bytes: number | null;
}

export interface GroupMembersTable {
  group_id: string;
  user_id: string;
  added_at: string;
}

export interface InstancesTable {
  id: string;
  name: string;
  type: 'pg' | 'etcd';
  status: 'unInitialized' | 'offline' | 'stopped' | 'running' | 'unknown';
  desired_state: 'running' | 'stopped';
  status_reason: string | null;
  health_level: 'good' | 'warn' | 'error';
  /** JSON array of health checks. */
  health_checks: string;
  group_id: string | null;
  engine_version: string | null;
  port: number;
  /** etcd's peer port; null for pg. */
  peer_port: number | null;
  /**
   * The members after the first of a clustered instance (an etcd cluster of 3 or 5): JSON array of
   * {port, peerPort}; null for a single member. The first member is `port`/`peer_port`.
   */
  member_ports: string | null;
  /** A PostgreSQL cluster's ClusterSpec (engines/pgCluster.ts) as JSON; null for every other instance. */
  cluster: string | null;
  description: string;
  created_at: string;
  created_by: string | null;
  last_backup_at: string | null;
  /** The running operation (one at a time), or null. */
  operation_kind: string | null;
  operation_started_at: string | null;
  /** Goes up with every change, so a client can tell a stale copy (a late HTTP answer) from a newer event. */
  version: number;
  /** The host that runs it (hosts.id); null until a supervising process adopts it (a store made before hosts). */
  host_id: string | null;
}

/** A machine that runs instances, registered and kept alive by its agent (server/hosts). */
export interface HostsTable {
  id: string;
  name: string;
  address: string;
  cores: number;
  memory_bytes: number;
  disk_free_bytes: number;
  ports_from: number;
  ports_to: number;
  agent_version: string;
  started_at: string;
  heartbeat_at: string;
  /** How often its agent heartbeats: it is lost after `hostLostAfterBeats` of them. */
  heartbeat_ms: number;
  /** Where its agent answers the calls servers forward to it (http://address:port); null until it listens. */
  api_url: string | null;
  /** When the host was found lost (no heartbeat for a while); null while it is online. */
  lost_at: string | null;
  /** 1: no new instance is placed on it. */
  draining: number;
  created_at: string;
}

/** An operation on an instance, queued for the agent of the instance's host; deleted once done. */
export interface HostOperationsTable {
  id: Generated<number>;
  host_id: string;
  instance_id: string;
  kind: string;
  /** JSON: what the operation needs besides the instance (a creation's initial parameters). */
  input: string;
  created_at: string;
  /** The agent (its host id and start time) that took it, and when; null while it waits. */
  claimed_by: string | null;
  claimed_at: string | null;
}

export interface ConfigRevisionsTable {
  instance_id: string;
  revision: number;
  author: string | null;
  created_at: string;
  /** JSON array of {name, from, to}. */
  changes: string;
  /** JSON object: every value saved through the console as of this revision. */
  parameters: string;
}

export interface LogsTable {
  /** Generated, increasing: the cursor of paged log queries. */
  id: Generated<number>;
  timestamp: string;
  level: LogLevel;
  instance_id: string | null;
  handler: string;
  message: string;
  /** JSON object text. */
  properties: string;
}

/** Running totals of the log store per instance ('' for the control plane), kept by the store itself. */
export interface LogTotalsTable {
  scope: string;
  entries: number;
  bytes: number;
}

/** An event too large for a notification, read by id by every server of a shared store. */
export interface HubPayloadsTable {
  id: Generated<number>;
  /** The event as JSON. */
  body: string;
  created_at: string;
}

/** A key every server of a shared store uses alike. */
export interface SharedSecretsTable {
  name: string;
  /** 32 random bytes, base64url. */
  value: string;
  created_at: string;
}

/** Calls counted under one rate-limit key since window_start (ms since the epoch). */
export interface RateLimitsTable {
  key: string;
  hits: number;
  window_start: number;
}

/** One row (id 1): how many instances there are, kept by triggers (instanceCount.ts). */
export interface InstanceCountTable {
  id: number;
  n: number;
}

export interface LogOffsetsTable {
  /** Absolute path of an engine's log file. */
  file: string;
  instance_id: string;
  offset: number;
}

export interface BackupsTable {
  id: string;
  instance_id: string;
  instance_name: string;
  /** The instance's engine: what a restore or a verification runs. */
  engine: 'pg' | 'etcd';
  kind: 'database' | 'file';
  trigger: 'manual' | 'schedule' | 'pre-update' | 'clone';
  status: 'pending' | 'running' | 'succeeded' | 'failed' | 'corrupt';
  started_at: string;
  finished_at: string | null;
  size_bytes: number | null;
  sha256: string | null;
  format: string;
  engine_version: string | null;
  error: string | null;
  /** Where the storage keeps the file; null until it was written. */
  storage_key: string | null;
  /** JSON BackupContents. */
  contents: string | null;
  /** JSON BackupVerification. */
  verification: string | null;
  created_by: string | null;
  /** 1: never trimmed by retention (0011_backup_pins). */
  pinned: Generated<number>;
}

export interface BackupSchedulesTable {
  instance_id: string;
  enabled: number;
  cron: string;
  time_zone: string;
  keep_last: number | null;
  keep_days: number | null;
  /** 1: retention trims manual (and other unscheduled) backups too; 0: scheduled ones only. */
  include_manual: Generated<number>;
  /** 'dump' or 'physical' (0015_point_in_time_recovery). */
  method: Generated<'dump' | 'physical'>;
  last_run_at: string | null;
  updated_at: string;
}

/** Failed sign-ins of one account from one client address, and that pair's lockout. */
export interface LoginFailuresTable {
  user_id: string;
  address: string;
  failures: number;
  lockout_end: string | null;
  updated_at: string;
}

export interface ScriptsTable {
  instance_id: string;
  script: string;
  updated_at: string;
  updated_by: string | null;
}

export interface ScriptRunsTable {
  id: string;
  instance_id: string;
  status: 'pending' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  phase: 'queued' | 'preparing' | 'starting' | 'running' | 'cleaning' | 'finished';
  source: string;
  copied_from: 'backup' | 'live' | 'empty' | null;
  backup_id: string | null;
  script: string;
  continue_on_error: number;
  timeout_ms: number;
  started_at: string;
  finished_at: string | null;
  /** 1 or 0 once finished. */
  ok: number | null;
  created_by: string | null;
  statements: number;
  failures: number;
  error: string | null;
  /** JSON ScriptResult[]. */
  results: string | null;
  /** JSON ScriptChange[]. */
  changes: string | null;
}

export interface MetricSeriesTable {
  id: Generated<number>;
  instance_id: string;
  /** The data folder's size in bytes as last measured (the list's sizeBytes); null before. */
  size_bytes: number | null;
}

export interface MetricSamplesTable {
  series_id: number;
  /** Index into metricResolutions: 0 raw, 1 one minute, 2 one hour. */
  resolution: number;
  /** Epoch ms: the sample's time, or the start of the rolled-up bucket. */
  at: number;
  /** JSON array of values (null when absent) in metricDefinitions order. */
  data: string;
}

/** A named point of an instance's WAL (0015_point_in_time_recovery). */
export interface RestorePointsTable {
  instance_id: string;
  name: string;
  lsn: string;
  at: string;
  created_by: string | null;
}

/** What an instance made by a restore to a point came from (0015_point_in_time_recovery). */
export interface PointRestoresTable {
  instance_id: string;
  source_id: string;
  source_name: string;
  /** JSON RecoveryTarget. */
  target: string;
  backup_id: string;
  last_replayed_at: string | null;
  timeline: number;
  recovery_ms: number;
  wal_bytes: number;
  created_at: string;
}

/** A restore drill or a verification of an instance's WAL repository (0015_point_in_time_recovery). */
export interface RecoveryChecksTable {
  id: string;
  instance_id: string;
  kind: 'drill' | 'verify';
  at: string;
  ok: number;
  target_time: string | null;
  backup_id: string | null;
  recovery_ms: number | null;
  wal_bytes: number | null;
  detail: string;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  audit_entries: AuditEntriesTable;
  tokens: TokensTable;
  recovery_codes: RecoveryCodesTable;
  outbox: OutboxTable;
  groups: GroupsTable;
  group_members: GroupMembersTable;
  instances: InstancesTable;
  hosts: HostsTable;
  host_operations: HostOperationsTable;
  config_revisions: ConfigRevisionsTable;
  logs: LogsTable;
  log_offsets: LogOffsetsTable;
  log_totals: LogTotalsTable;
  backups: BackupsTable;
  backup_schedules: BackupSchedulesTable;
  login_failures: LoginFailuresTable;
  metric_series: MetricSeriesTable;
  metric_samples: MetricSamplesTable;
  scripts: ScriptsTable;
  script_runs: ScriptRunsTable;
  restore_points: RestorePointsTable;
  point_restores: PointRestoresTable;
  recovery_checks: RecoveryChecksTable;
  hub_payloads: HubPayloadsTable;
  shared_secrets: SharedSecretsTable;
  rate_limits: RateLimitsTable;
  instance_count: InstanceCountTable;
}

export type Db = Kysely<Database>;
