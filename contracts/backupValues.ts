// Backup vocabulary without TypeBox, so the browser may import the values (DESIGN §5).

export const backupKinds = ['database', 'file'] as const;
export type BackupKind = (typeof backupKinds)[number];
export const backupTriggers = ['manual', 'schedule', 'pre-update', 'clone'] as const;
export type BackupTrigger = (typeof backupTriggers)[number];
/** `corrupt`: the stored file no longer matches the checksum taken when it was written. */
export const backupStatuses = ['pending', 'running', 'succeeded', 'failed', 'corrupt'] as const;
export type BackupStatus = (typeof backupStatuses)[number];

/** How a database backup of a pg instance is taken: a logical dump, or a physical pgBackRest backup. */
export const databaseBackupMethods = ['dump', 'full', 'diff', 'incr'] as const;
export type DatabaseBackupMethod = (typeof databaseBackupMethods)[number];
/** What a scheduled run takes: a dump, or a physical backup (a full one a week, differential ones between). */
export const scheduleMethods = ['dump', 'physical'] as const;
export type ScheduleMethod = (typeof scheduleMethods)[number];
/** A scheduled physical run takes a full backup when the newest is this old. */
export const fullBackupEveryDays = 7;

/** The format a physical backup is listed with: `pgBackRest full` and so on. */
export const physicalFormatPrefix = 'pgBackRest ';
export const isPhysicalFormat = (format: string) => format.startsWith(physicalFormatPrefix);

export const backupSortFields = ['startedAt', 'finishedAt', 'sizeBytes', 'status', 'instanceName'] as const;

/** How long a signed download URL stays valid. */
export const downloadUrlLifetimeMs = 5 * 60_000;

/** Retention bounds: keep at least one backup, at most ten years of days. */
export const retentionLimits = { keepLastMax: 1000, keepDaysMax: 3650 } as const;

/** Bytes as an operator reads them: 1.2 GB, 340 kB. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '—';
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
