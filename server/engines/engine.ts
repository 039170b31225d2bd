import type { BackupContents, RestoreSkip } from '../../contracts/backups';
import type { InstanceMember } from '../../contracts/instances';
import type { EngineBinaries } from './detect';
import type { PitrOptions } from './pgArchive';
import type { ClusterSpec } from './pgCluster';

export type EngineType = 'pg' | 'etcd';

/** Where one instance lives and listens. Everything an engine needs is under `dir`. */
export interface InstanceRuntime {
  id: string;
  /** <dataDir>/instances/<id>: the engine's data, sockets, logs and secrets. */
  dir: string;
  port: number;
  /** etcd's peer port; unused by pg. */
  peerPort?: number;
  /** The members after the first of a clustered instance (an etcd cluster of 3 or 5); none for one member. */
  members?: { port: number; peerPort: number }[];
  /** A PostgreSQL cluster on Patroni (2 to 5 members): its consensus store, addresses and timing. */
  cluster?: ClusterSpec;
  /** One member of a PostgreSQL cluster, whose folder (members/<n>) and port a call is for. */
  member?: number;
  /** A throwaway copy (a verification, a script's sandbox): it keeps no WAL archive. */
  scratch?: boolean;
}

export type HealthLevel = 'good' | 'warn' | 'error';

export interface HealthCheck {
  name: string;
  level: HealthLevel;
  message: string;
}

export interface EngineHealth {
  running: boolean;
  level: HealthLevel;
  checks: HealthCheck[];
}

export interface ConfigParameter {
  name: string;
  value: string;
  default: string | null;
  type: 'bool' | 'integer' | 'real' | 'string' | 'enum';
  unit: string | null;
  min: number | null;
  max: number | null;
  enumValues: string[] | null;
  apply: 'reload' | 'restart';
  description: string;
}

export interface ReloadReport {
  /** Parameters the engine refused on reload, with its words. */
  errors: { name: string; message: string }[];
  /** Parameters whose new value waits for a restart. */
  pendingRestart: string[];
}

export interface ApplyResult {
  reload: string[];
  restart: string[];
}

/** One engine kind (pg, etcd) behind one interface; the instances service never runs a tool itself. */
export interface Engine {
  type: EngineType;
  /** Why this engine cannot be used here (missing binaries, naming the Debian package), or null. */
  unavailable(): Promise<string | null>;
  version(): Promise<string>;
  initialize(rt: InstanceRuntime, parameters?: Record<string, string>): Promise<void>;
  start(rt: InstanceRuntime): Promise<void>;
  stop(rt: InstanceRuntime): Promise<void>;
  restart(rt: InstanceRuntime): Promise<void>;
  reload(rt: InstanceRuntime): Promise<ReloadReport>;
  /** The engine's main process id when it runs, else null. */
  pid(rt: InstanceRuntime): number | null;
  probe(rt: InstanceRuntime): Promise<EngineHealth>;
  parameters(rt: InstanceRuntime): Promise<ConfigParameter[]>;
  /** Saved parameters the running engine has read but waits for a restart to use. */
  pendingRestart(rt: InstanceRuntime): Promise<string[]>;
  /** Per-parameter errors for proposed changes; empty when all are acceptable. */
  validate(rt: InstanceRuntime, changes: Record<string, string>): Promise<Record<string, string[]>>;
  apply(rt: InstanceRuntime, changes: Record<string, string>): Promise<ApplyResult>;
  /**
   * Removes managed parameters from the saved configuration (written before the policy existed, or
   * by hand), so the next start cannot use them. Answers the names removed.
   */
  resetManaged(rt: InstanceRuntime): string[];
  /**
   * Makes `target` a copy of `source` that can start on its own ports: a consistent online copy
   * when the source runs (pg_basebackup, etcd snapshot), a stopped copy otherwise. Not started.
   */
  clone(source: InstanceRuntime, target: InstanceRuntime): Promise<void>;
  /**
   * Writes a consistent backup of the running instance's data into `dir` (with a manifest.json),
   * reporting progress as it goes. The caller packs `dir` into one archive.
   */
  backupDatabase(rt: InstanceRuntime, dir: string, progress: (p: BackupProgress) => void): Promise<DatabaseBackup>;
  /**
   * Makes `target` (never initialized) an instance holding the backup unpacked in `dir`, with the
   * given parameters, and leaves it running. Answers what it left out (an engine that always restores
   * everything answers nothing).
   */
  restoreDatabase(dir: string, target: InstanceRuntime, parameters: Record<string, string>): Promise<RestoreReport | void>;
  /** What the running instance holds, in the terms `recorded` uses, to compare a restore against. */
  inspect(rt: InstanceRuntime, recorded: BackupContents): Promise<BackupContents>;
  /**
   * What the backup unpacked in `dir` holds, counted exactly where `recorded` has estimates, read as
   * `rt`'s user; the recorded contents as they are for an engine that records them exactly.
   */
  dumpedContents?(dir: string, rt: InstanceRuntime, recorded: BackupContents): Promise<BackupContents>;
  /** Paths under rt.dir a file backup packs: configuration and logs, plus the data folder when asked. */
  fileBackupPaths(rt: InstanceRuntime, withData: boolean): string[];
  /** The folder the engine writes its JSON logs to. */
  logDir(rt: InstanceRuntime): string;
  remove(rt: InstanceRuntime): Promise<void>;
  /** Each member as it is now (one for a single process): GET /instances/{id}/members. */
  members(rt: InstanceRuntime): Promise<InstanceMember[]>;
  /** Members of a running instance whose process is gone, which supervision starts again. */
  stoppedMembers(rt: InstanceRuntime): number[];
}

/** How far a backup is: bytes written, percent when the total is known, and what it does now. */
export interface BackupProgress {
  bytes: number;
  percent: number | null;
  step: string;
}

/** What a restore of a database backup left out: statements the tenant's rights do not allow. */
export interface RestoreReport {
  skipped: RestoreSkip[];
}

/** What a database backup holds (BackupContents of contracts/backups), and its archive format. */
export interface DatabaseBackup {
  format: string;
  contents: BackupContents;
  /** Which member the backup read, when the instance has several ("member 2, a replica"). */
  readFrom?: string;
}

export interface EngineOptions {
  /** Where parameter metadata is kept per engine release, to check configuration while no instance runs. */
  catalogDir?: string;
  /** pg: WAL archiving and physical backups with pgBackRest (absent: none). */
  pitr?: PitrOptions;
}

export type EngineFactory = (binaries: EngineBinaries, options?: EngineOptions) => Engine;
