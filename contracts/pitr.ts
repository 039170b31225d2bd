import { Type, type Static } from 'typebox';
import { clusterPresetNames } from './clusters';

// Point-in-time recovery of pg instances (DESIGN §12): WAL archived continuously by pgBackRest into
// a repository of the instance's own, physical backups, the window a restore can reach, and restores
// to a moment of it into a new instance. Every time is ISO 8601 with an offset.

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** The kinds of physical backup pgBackRest takes: whole, since the last full, since the last of any. */
export const physicalBackupKinds = ['full', 'diff', 'incr'] as const;
export type PhysicalBackupKind = (typeof physicalBackupKinds)[number];

/** How long the window reaches back, in days (DESIGN §12; RDS allows 1–35). */
export const recoveryWindowDays = { min: 1, max: 35, default: 7 } as const;
/** archive_timeout: the longest a committed change waits before its WAL segment is archived. */
export const archiveTimeoutSeconds = { min: 10, max: 600, default: 60 } as const;

/** A moment with an explicit offset: `2026-11-26T10:42:00+01:00` or `…Z`; never a bare local time. */
export const timeWithOffsetPattern = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?(Z|[+-]\\d{2}:\\d{2})$';
/** A WAL position as PostgreSQL writes it: `0/3000028`. */
export const lsnPattern = '^[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}$';
/** A restore point's name: what pg_create_restore_point takes, kept to printable words. */
export const restorePointNamePattern = '^[A-Za-z0-9][A-Za-z0-9 ._:-]{0,62}$';

export const PhysicalBackup = Type.Object({
  /** pgBackRest's label, e.g. 20261126-213749F. */
  id: Type.String(),
  kind: Type.Enum([...physicalBackupKinds]),
  startedAt: Type.String(),
  /** The moment the backup is consistent at: a restore target must come after it. */
  finishedAt: Type.String(),
  walStart: Type.String(),
  walStop: Type.String(),
  lsnStart: Type.String(),
  lsnStop: Type.String(),
  /** Bytes kept in the repository (compressed, deduplicated against the backups it builds on). */
  sizeBytes: Type.Integer(),
  /** Bytes of the database it restores. */
  databaseBytes: Type.Integer(),
  /** The full (and differential) backups it needs, by id. */
  dependsOn: Type.Array(Type.String()),
});
export type PhysicalBackup = Static<typeof PhysicalBackup>;

export const RecoveryGap = Type.Object({
  from: Type.String(),
  to: Type.String(),
  reason: Type.String(),
});
export type RecoveryGap = Static<typeof RecoveryGap>;

export const RestorePoint = Type.Object({
  name: Type.String(),
  at: Type.String(),
  lsn: Type.String(),
  createdBy: nullable(Type.String()),
});
export type RestorePoint = Static<typeof RestorePoint>;

/** What a restore reaches for: a moment with an offset, a WAL position, a named restore point, or the latest. */
export const RecoveryTarget = Type.Union([
  Type.Object({ time: Type.String({ pattern: timeWithOffsetPattern, maxLength: 40 }) }, { additionalProperties: false }),
  Type.Object({ lsn: Type.String({ pattern: lsnPattern, maxLength: 17 }) }, { additionalProperties: false }),
  Type.Object({ name: Type.String({ pattern: restorePointNamePattern, maxLength: 63 }) }, { additionalProperties: false }),
  Type.Literal('latest'),
]);
export type RecoveryTarget = Static<typeof RecoveryTarget>;

/** What the new instance records of where it came from. */
export const RestoredFrom = Type.Object({
  sourceId: Type.String(),
  sourceName: Type.String(),
  target: RecoveryTarget,
  backupId: Type.String(),
  /** The commit time of the last transaction the recovery replayed. */
  lastReplayedAt: nullable(Type.String()),
  timeline: Type.Integer(),
  recoverySeconds: Type.Number(),
});
export type RestoredFrom = Static<typeof RestoredFrom>;

/**
 * A restore drill: the instance restored to a random moment of its window into a throwaway copy,
 * started and asked a query; or (`kind: verify`) pgBackRest's check of every file of the repository.
 */
export const RecoveryCheck = Type.Object({
  kind: Type.Enum(['drill', 'verify']),
  at: Type.String(),
  ok: Type.Boolean(),
  /** Drill: the moment restored to, the backup it started from, and how long the restore took. */
  targetTime: nullable(Type.String()),
  backupId: nullable(Type.String()),
  recoverySeconds: nullable(Type.Number()),
  detail: Type.String(),
});
export type RecoveryCheck = Static<typeof RecoveryCheck>;

/** GET /instances/{id}/recovery-window */
export const RecoveryWindow = Type.Object({
  /** Whether WAL is archived for this instance. */
  enabled: Type.Boolean(),
  /** Why not, or what keeps the window from growing (archiving failed, lagging), for the operator; else null. */
  reason: nullable(Type.String()),
  /** Where the repository is: this server's disk or an S3-compatible bucket. */
  repository: Type.Enum(['local', 's3']),
  /** The earliest and latest moments a restore can reach; null until the first backup is whole. */
  earliest: nullable(Type.String()),
  latest: nullable(Type.String()),
  archiveTimeoutSeconds: Type.Integer(),
  retentionDays: Type.Integer(),
  lastArchivedAt: nullable(Type.String()),
  lastArchivedWal: nullable(Type.String()),
  lastFailedAt: nullable(Type.String()),
  lastFailedWal: nullable(Type.String()),
  /** Stretches of the window no restore can reach: a missing WAL segment, a timeline switch … */
  gaps: Type.Array(RecoveryGap),
  backups: Type.Array(PhysicalBackup),
  restorePoints: Type.Array(RestorePoint),
  /** The last restore drill and the last verification of the repository, and whether one runs now. */
  lastDrill: nullable(RecoveryCheck),
  lastVerify: nullable(RecoveryCheck),
  checking: Type.Boolean(),
  /** An instance made by a restore to a point: its source, target, backup set and last replayed transaction. */
  restoredFrom: nullable(RestoredFrom),
});
export type RecoveryWindow = Static<typeof RecoveryWindow>;


/** POST /instances/{id}/restore-point: a new instance holding the source as it was at `target`. */
export const RestoreToPointRequest = Type.Object(
  {
    target: RecoveryTarget,
    /** The new instance's name. */
    name: Type.String({ maxLength: 100 }),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    /** The new instance's group; the source's when absent. */
    groupId: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: 64 }))),
    /** A physical backup to start from, instead of the one Warden picks. */
    backupId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    /** Answer the plan without restoring. */
    dryRun: Type.Optional(Type.Boolean()),
    /** 2 to 5 makes the new instance a PostgreSQL cluster on Patroni, as POST /instances does; 1 (a single server) when absent. */
    members: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
    /** A cluster's consensus store (an etcd instance of the new instance's group); one is made with it when absent. */
    dcsInstanceId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    synchronous: Type.Optional(Type.Boolean()),
    failoverPreset: Type.Optional(Type.Enum([...clusterPresetNames])),
  },
  { additionalProperties: false },
);
export type RestoreToPointRequest = Static<typeof RestoreToPointRequest>;

/** What a restore will do (the answer of a dry run). */
export const RestorePlan = Type.Object({
  /** The target as a moment, when it is one (a name or LSN is resolved where known). */
  targetTime: nullable(Type.String()),
  target: RecoveryTarget,
  backup: PhysicalBackup,
  timeline: Type.Integer(),
  /** WAL to replay after the backup: segments and bytes. */
  walSegments: Type.Integer(),
  walBytes: Type.Integer(),
  /** From the last restore drill of this instance, scaled to the WAL to replay; null before the first. */
  estimatedSeconds: nullable(Type.Number()),
  window: Type.Object({ earliest: Type.String(), latest: Type.String() }),
});
export type RestorePlan = Static<typeof RestorePlan>;

/** POST /instances/{id}/restore-points */
export const CreateRestorePointRequest = Type.Object(
  { name: Type.String({ pattern: restorePointNamePattern, maxLength: 63 }) },
  { additionalProperties: false },
);
export type CreateRestorePointRequest = Static<typeof CreateRestorePointRequest>;

/** PUT /instances/{id}/pitr/settings */
export const PitrSettings = Type.Object(
  {
    archiveTimeoutSeconds: Type.Integer({ minimum: archiveTimeoutSeconds.min, maximum: archiveTimeoutSeconds.max }),
    retentionDays: Type.Integer({ minimum: recoveryWindowDays.min, maximum: recoveryWindowDays.max }),
  },
  { additionalProperties: false },
);
export type PitrSettings = Static<typeof PitrSettings>;


// ---- Hub payloads ----

/** RecoveryWindowChanged: WAL was archived, a backup ended, archiving failed or recovered. */
export interface RecoveryWindowChangedPayload {
  instanceId: string;
  window: RecoveryWindow;
}
