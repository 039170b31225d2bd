import { Type, type Static } from 'typebox';
import { backupKinds, backupStatuses, backupTriggers, databaseBackupMethods, retentionLimits, scheduleMethods } from './backupValues';
import { PageQuery } from './page';

export * from './backupValues';

const literals = <const T extends string>(values: readonly T[]) => Type.Enum([...values]);
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** What a database backup holds, as recorded when it was taken; verification compares against it. */
export const BackupContents = Type.Object({
  /**
   * pg: each database with its dump size and rows per table (schema.table): the planner's estimates
   * when `rowsEstimated` (backups since the dump stopped scanning tables twice; verify counts exactly),
   * exact counts in earlier backups.
   */
  databases: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String(),
        bytes: Type.Integer(),
        rows: Type.Record(Type.String(), Type.Integer()),
        rowsEstimated: Type.Optional(Type.Boolean()),
      }),
    ),
  ),
  /** pg: the WAL position the dump's snapshot was taken at. */
  lsn: Type.Optional(Type.String()),
  /** etcd: the snapshot's revision and the number of keys at that revision. */
  revision: Type.Optional(Type.Integer()),
  keyCount: Type.Optional(Type.Integer()),
  /** File backups: whether the data directory was copied cold (instance stopped). */
  dataDirectory: Type.Optional(Type.Boolean()),
  /** pg physical backups: pgBackRest's set, in the instance's WAL archive (restored to a point in time). */
  physical: Type.Optional(
    Type.Object({
      label: Type.String(),
      walStart: Type.String(),
      walStop: Type.String(),
      lsnStart: Type.String(),
      lsnStop: Type.String(),
      databaseBytes: Type.Integer(),
    }),
  ),
  /** The tool versions that wrote the archive (pg_dump, etcdctl, tar). */
  tools: Type.Optional(Type.Record(Type.String(), Type.String())),
});
export type BackupContents = Static<typeof BackupContents>;

/**
 * Something of a database backup a restore left out: a statement only a superuser may run (an event
 * trigger, a function in an untrusted language, a role's SUPERUSER attribute …). A restore runs with
 * the tenant's rights only, so it skips these, and says so.
 */
export const RestoreSkip = Type.Object({
  /** The database it belongs to; null for the instance's roles. */
  database: nullable(Type.String()),
  /** The statement (its first line) or the part of a role left out. */
  what: Type.String(),
  /** Why, in PostgreSQL's or Warden's words. */
  reason: Type.String(),
});
export type RestoreSkip = Static<typeof RestoreSkip>;

export const BackupVerification = Type.Object({
  at: Type.String(),
  ok: Type.Boolean(),
  detail: Type.String(),
  /** pg: what the restore into the scratch instance left out (absent when nothing). */
  skipped: Type.Optional(Type.Array(RestoreSkip)),
});
export type BackupVerification = Static<typeof BackupVerification>;

export const BackupProgressState = Type.Object({
  bytes: Type.Integer(),
  /** 0–100 when the total is known. */
  percent: nullable(Type.Number()),
  /** What the backup is doing now (e.g. "dumping shop"). */
  step: Type.String(),
});
export type BackupProgressState = Static<typeof BackupProgressState>;

/** DESIGN §10, extended with the instance's name, contents, duration and live progress. */
export const Backup = Type.Object({
  id: Type.String(),
  instanceId: Type.String(),
  /** Kept on the backup, so backups of a deleted instance still say whose they were. */
  instanceName: Type.String(),
  /** False once the instance was deleted (its backups are kept). */
  instanceExists: Type.Boolean(),
  kind: literals(backupKinds),
  trigger: literals(backupTriggers),
  status: literals(backupStatuses),
  startedAt: Type.String(),
  finishedAt: nullable(Type.String()),
  durationMs: nullable(Type.Integer()),
  sizeBytes: nullable(Type.Integer()),
  sha256: nullable(Type.String()),
  format: Type.String(),
  engineVersion: nullable(Type.String()),
  error: nullable(Type.String()),
  verification: nullable(BackupVerification),
  contents: nullable(BackupContents),
  progress: nullable(BackupProgressState),
  /** A verification of it runs now (its result arrives as BackupUpdated). */
  verifying: Type.Boolean(),
  createdBy: nullable(Type.String()),
  /** Never trimmed by retention. */
  pinned: Type.Boolean(),
});
export type Backup = Static<typeof Backup>;

const filters = {
  status: Type.Optional(literals(backupStatuses)),
  trigger: Type.Optional(literals(backupTriggers)),
  from: Type.Optional(Type.String({ format: 'date-time', maxLength: 40 })),
  to: Type.Optional(Type.String({ format: 'date-time', maxLength: 40 })),
};

/** GET /instances/{id}/backups/database and /files: newest first unless `sort` says otherwise. */
export const BackupsQuery = Type.Object(
  { ...PageQuery.properties, ...filters, sort: Type.Optional(Type.String({ maxLength: 64 })) },
  { additionalProperties: false },
);
export type BackupsQuery = Static<typeof BackupsQuery>;

/** GET /backups: every backup the caller may see. */
export const AllBackupsQuery = Type.Object(
  {
    ...PageQuery.properties,
    ...filters,
    kind: Type.Optional(literals(backupKinds)),
    instanceId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    /** Failed and corrupt backups before the others. */
    failuresFirst: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type AllBackupsQuery = Static<typeof AllBackupsQuery>;

export const AllBackupsPage = Type.Object({
  items: Type.Array(Backup),
  total: Type.Integer(),
  page: Type.Integer(),
  pageSize: Type.Integer(),
  /** Stored bytes of every backup matching the filters (not just this page). */
  totalBytes: Type.Integer(),
  /** Failed or corrupt backups matching the filters. */
  failures: Type.Integer(),
});
export type AllBackupsPage = Static<typeof AllBackupsPage>;

export const BackupKindSummary = Type.Object({
  count: Type.Integer(),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  totalBytes: Type.Integer(),
  lastSucceededAt: nullable(Type.String()),
  lastFailedAt: nullable(Type.String()),
  /** The backup of this kind being taken now, if any. */
  running: nullable(Backup),
});
export type BackupKindSummary = Static<typeof BackupKindSummary>;

export const BackupSchedule = Type.Object({
  instanceId: Type.String(),
  enabled: Type.Boolean(),
  /** Five-field cron (minute hour day-of-month month day-of-week), read in `timeZone`. */
  cron: Type.String(),
  /** An IANA time zone, e.g. Europe/Berlin. */
  timeZone: Type.String(),
  keepLast: nullable(Type.Integer()),
  keepDays: nullable(Type.Integer()),
  /** Retention trims backups taken by hand too; otherwise scheduled ones only. */
  includeManual: Type.Boolean(),
  /**
   * pg: what a scheduled run takes: a dump, or a physical backup — a full one when the newest full
   * is a week old or more (or there is none), else a differential one — for point-in-time recovery.
   */
  method: literals(scheduleMethods),
  lastRunAt: nullable(Type.String()),
  /** The next five run times (UTC ISO), empty when disabled. */
  nextRuns: Type.Array(Type.String()),
});
export type BackupSchedule = Static<typeof BackupSchedule>;

export const UpdateScheduleRequest = Type.Object(
  {
    enabled: Type.Boolean(),
    cron: Type.String({ minLength: 1, maxLength: 100 }),
    timeZone: Type.String({ minLength: 1, maxLength: 64 }),
    keepLast: nullable(Type.Integer({ minimum: 1, maximum: retentionLimits.keepLastMax })),
    keepDays: nullable(Type.Integer({ minimum: 1, maximum: retentionLimits.keepDaysMax })),
    includeManual: Type.Optional(Type.Boolean({ default: false })),
    method: Type.Optional(literals(scheduleMethods)),
  },
  { additionalProperties: false },
);
export type UpdateScheduleRequest = Static<typeof UpdateScheduleRequest>;

export const BackupsSummary = Type.Object({
  instanceId: Type.String(),
  database: BackupKindSummary,
  files: BackupKindSummary,
  schedule: BackupSchedule,
});
export type BackupsSummary = Static<typeof BackupsSummary>;

/** POST /instances/{id}/backups/retention/preview: what a policy would delete now (a dry run). */
export const RetentionPreviewRequest = Type.Object(
  {
    keepLast: nullable(Type.Integer({ minimum: 1, maximum: retentionLimits.keepLastMax })),
    keepDays: nullable(Type.Integer({ minimum: 1, maximum: retentionLimits.keepDaysMax })),
    includeManual: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type RetentionPreviewRequest = Static<typeof RetentionPreviewRequest>;

export const RetentionPreview = Type.Object({
  wouldDelete: Type.Array(Backup),
  keptCount: Type.Integer(),
  freedBytes: Type.Integer(),
});
export type RetentionPreview = Static<typeof RetentionPreview>;

/** POST /instances/{id}/backups/database/backup: a dump (the default) or a physical backup of a pg instance. */
export const TakeDatabaseBackupRequest = Type.Optional(
  Type.Object({ kind: Type.Optional(literals(databaseBackupMethods)) }, { additionalProperties: false }),
);

export const DeleteBackupQuery = Type.Object(
  { force: Type.Optional(Type.Boolean({ default: false })) },
  { additionalProperties: false },
);

export const DeleteBackupResponse = Type.Object({ id: Type.String() });

/** PUT /instances/{id}/backups/{backupId}/pin: a pinned backup is never trimmed by retention. */
export const PinBackupRequest = Type.Object({ pinned: Type.Boolean() }, { additionalProperties: false });
export type PinBackupRequest = Static<typeof PinBackupRequest>;

export const DownloadUrl = Type.Object({ url: Type.String(), expiresAt: Type.String() });
export type DownloadUrl = Static<typeof DownloadUrl>;


// ---- Hub payloads (DESIGN §8) ----

export interface BackupProgressPayload {
  backupId: string;
  instanceId: string;
  bytes: number;
  percent: number | null;
  step: string;
}
/** BackupCompleted: the backup as it ended (succeeded, failed). */
export interface BackupCompletedPayload {
  backup: Backup;
}
/** BackupUpdated: a backup started, was verified, found corrupt or otherwise changed. */
export interface BackupUpdatedPayload {
  backup: Backup;
}
export interface BackupDeletedPayload {
  id: string;
  instanceId: string;
}
