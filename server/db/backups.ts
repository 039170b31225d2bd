import type { Insertable, Selectable } from 'kysely';
import type {
  AllBackupsPage,
  Backup,
  BackupContents,
  BackupKind,
  BackupKindSummary,
  BackupStatus,
  BackupTrigger,
  BackupVerification,
} from '../../contracts/backups';
import { contains, offsetOf, pageOf, parseSort, type PageWindow, type SortKey } from './paging';
import type { BackupSchedulesTable, BackupsTable, Db } from './schema';

export type BackupRow = Selectable<BackupsTable>;
export type BackupScheduleRow = Selectable<BackupSchedulesTable>;
export type BackupChange = Partial<Omit<BackupRow, 'id' | 'instance_id'>>;

type BackupSortField = 'startedAt' | 'finishedAt' | 'sizeBytes' | 'status' | 'instanceName';
export type BackupSort = SortKey<BackupSortField>;

const sortColumns = {
  startedAt: 'backups.started_at',
  finishedAt: 'backups.finished_at',
  sizeBytes: 'backups.size_bytes',
  status: 'backups.status',
  instanceName: 'backups.instance_name',
} as const;

/** Live progress and verification are not stored: the service lays them over the row (BackupService.view). */
export function toBackup(row: BackupRow & { instance_exists?: number | null }): Backup {
  const durationMs = row.finished_at ? Date.parse(row.finished_at) - Date.parse(row.started_at) : null;
  return {
    id: row.id,
    instanceId: row.instance_id,
    instanceName: row.instance_name,
    instanceExists: row.instance_exists === undefined ? true : Boolean(row.instance_exists),
    kind: row.kind,
    trigger: row.trigger,
    status: row.status,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    durationMs,
    sizeBytes: row.size_bytes,
    sha256: row.sha256,
    format: row.format,
    engineVersion: row.engine_version,
    error: row.error,
    verification: row.verification ? (JSON.parse(row.verification) as BackupVerification) : null,
    contents: row.contents ? (JSON.parse(row.contents) as BackupContents) : null,
    progress: null,
    verifying: false,
    createdBy: row.created_by,
    pinned: row.pinned === 1,
  };
}

function withExistence(db: Db) {
  return db
    .selectFrom('backups')
    .leftJoin('instances', 'instances.id', 'backups.instance_id')
    .selectAll('backups')
    .select((eb) => eb.case().when('instances.id', 'is not', null).then(1).else(0).end().as('instance_exists'));
}

export async function insertBackup(db: Db, row: Insertable<BackupsTable>): Promise<void> {
  await db.insertInto('backups').values(row).execute();
}

export async function updateBackup(db: Db, id: string, change: BackupChange): Promise<void> {
  await db.updateTable('backups').set(change).where('id', '=', id).execute();
}

export async function deleteBackupRow(db: Db, id: string): Promise<void> {
  await db.deleteFrom('backups').where('id', '=', id).execute();
}

export async function findBackupRow(db: Db, id: string) {
  return withExistence(db).where('backups.id', '=', id).executeTakeFirst();
}

/** Every backup of one instance (any status), newest first: retention and summaries read these. */
export async function backupsOfInstance(db: Db, instanceId: string, kind?: BackupKind): Promise<BackupRow[]> {
  let query = db.selectFrom('backups').selectAll().where('instance_id', '=', instanceId);
  if (kind) query = query.where('kind', '=', kind);
  return query.orderBy('started_at', 'desc').orderBy('id', 'desc').execute();
}

/** Backups the server was taking when it stopped: they can never finish. */
export async function unfinishedBackups(db: Db): Promise<BackupRow[]> {
  return db.selectFrom('backups').selectAll().where('status', 'in', ['pending', 'running']).execute();
}

export interface BackupFilters {
  status?: BackupStatus;
  trigger?: BackupTrigger;
  kind?: BackupKind;
  from?: string;
  to?: string;
  instanceId?: string;
  search?: string;
}

export interface BackupListQuery extends PageWindow, BackupFilters {
  sort?: BackupSort;
  failuresFirst?: boolean;
  /** Groups whose instances' backups the caller sees; null = all, including deleted instances'. */
  visibleGroupIds: string[] | null;
}

/** One page of backups with the totals of everything the filters match. */
export async function listBackups(db: Db, query: BackupListQuery): Promise<AllBackupsPage> {
  const empty = { ...pageOf(query, 0, []), totalBytes: 0, failures: 0 };
  if (query.visibleGroupIds !== null && query.visibleGroupIds.length === 0) return empty;
  let base = db.selectFrom('backups').leftJoin('instances', 'instances.id', 'backups.instance_id');
  if (query.visibleGroupIds !== null) base = base.where('instances.group_id', 'in', query.visibleGroupIds);
  if (query.instanceId) base = base.where('backups.instance_id', '=', query.instanceId);
  if (query.kind) base = base.where('backups.kind', '=', query.kind);
  if (query.status) base = base.where('backups.status', '=', query.status);
  if (query.trigger) base = base.where('backups.trigger', '=', query.trigger);
  if (query.from) base = base.where('backups.started_at', '>=', new Date(query.from).toISOString());
  if (query.to) base = base.where('backups.started_at', '<=', new Date(query.to).toISOString());
  if (query.search) base = base.where(contains('backups.instance_name', query.search.trim().toLowerCase()));

  const { field, direction } = parseSort(query.sort ?? '-startedAt');
  let ordered = base
    .selectAll('backups')
    .select((eb) => eb.case().when('instances.id', 'is not', null).then(1).else(0).end().as('instance_exists'));
  if (query.failuresFirst) {
    ordered = ordered.orderBy((eb) => eb.case().when('backups.status', 'in', ['failed', 'corrupt']).then(0).else(1).end(), 'asc');
  }
  const [totals, rows] = await Promise.all([
    base
      .select((eb) => [
        eb.fn.countAll<number>().as('total'),
        eb.fn.coalesce(eb.fn.sum<number>('backups.size_bytes'), eb.lit(0)).as('bytes'),
        eb.fn.sum<number>(eb.case().when('backups.status', 'in', ['failed', 'corrupt']).then(1).else(0).end()).as('failures'),
      ])
      .executeTakeFirstOrThrow(),
    ordered
      .orderBy(sortColumns[field], direction)
      .orderBy('backups.id', 'desc')
      .limit(query.pageSize)
      .offset(offsetOf(query))
      .execute(),
  ]);
  return {
    ...pageOf(query, totals.total, rows.map((row) => toBackup(row))),
    totalBytes: Number(totals.bytes ?? 0),
    failures: Number(totals.failures ?? 0),
  };
}

/** Counts and sizes of one instance's backups of one kind. */
export function summarize(rows: BackupRow[], running: Backup | null): BackupKindSummary {
  const succeeded = rows.filter((r) => r.status === 'succeeded');
  const failed = rows.filter((r) => r.status === 'failed' || r.status === 'corrupt');
  return {
    count: rows.length,
    succeeded: succeeded.length,
    failed: failed.length,
    totalBytes: rows.reduce((sum, r) => sum + (r.size_bytes ?? 0), 0),
    lastSucceededAt: succeeded[0]?.finished_at ?? null,
    lastFailedAt: failed[0]?.finished_at ?? null,
    running,
  };
}

export async function findSchedule(db: Db, instanceId: string): Promise<BackupScheduleRow | undefined> {
  return db.selectFrom('backup_schedules').selectAll().where('instance_id', '=', instanceId).executeTakeFirst();
}

export async function enabledSchedules(db: Db): Promise<BackupScheduleRow[]> {
  return db.selectFrom('backup_schedules').selectAll().where('enabled', '=', 1).execute();
}

export async function saveSchedule(db: Db, row: Insertable<BackupSchedulesTable>): Promise<void> {
  const { instance_id: _id, ...rest } = row;
  await db.insertInto('backup_schedules').values(row).onConflict((oc) => oc.column('instance_id').doUpdateSet(rest)).execute();
}

/**
 * Claims a schedule's slot: sets its last run to the slot only if it still is what the caller read,
 * and answers whether this call did. Servers sharing a store tick alike; only the one whose update
 * lands takes the backup, so a slot is taken once however many servers saw it due.
 */
export async function claimScheduleRun(db: Db, instanceId: string, readLastRun: string | null, slot: string): Promise<boolean> {
  const result = await db
    .updateTable('backup_schedules')
    .set({ last_run_at: slot })
    .where('instance_id', '=', instanceId)
    .where((eb) => (readLastRun === null ? eb('last_run_at', 'is', null) : eb('last_run_at', '=', readLastRun)))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
