import type { RecoveryTarget, RestorePoint, RestoredFrom } from '../../contracts/pitr';
import type { Db, PointRestoresTable, RestorePointsTable } from './schema';

// Named restore points and what restores to a point made (0015_point_in_time_recovery).

export async function restorePointsOf(db: Db, instanceId: string): Promise<RestorePoint[]> {
  const rows = await db.selectFrom('restore_points').selectAll().where('instance_id', '=', instanceId).orderBy('at').execute();
  return rows.map((r) => ({ name: r.name, at: r.at, lsn: r.lsn, createdBy: r.created_by }));
}

export async function findRestorePoint(db: Db, instanceId: string, name: string): Promise<RestorePoint | null> {
  const row = await db.selectFrom('restore_points').selectAll().where('instance_id', '=', instanceId).where('name', '=', name).executeTakeFirst();
  return row ? { name: row.name, at: row.at, lsn: row.lsn, createdBy: row.created_by } : null;
}

export async function insertRestorePoint(db: Db, row: RestorePointsTable): Promise<void> {
  await db.insertInto('restore_points').values(row).execute();
}

/** Points older than `before` (their WAL left the window) are forgotten. */
export async function forgetRestorePointsBefore(db: Db, instanceId: string, before: string): Promise<void> {
  await db.deleteFrom('restore_points').where('instance_id', '=', instanceId).where('at', '<', before).execute();
}

export async function insertPointRestore(db: Db, row: PointRestoresTable): Promise<void> {
  await db.insertInto('point_restores').values(row).execute();
}

export async function pointRestoreOf(db: Db, instanceId: string): Promise<RestoredFrom | null> {
  const row = await db.selectFrom('point_restores').selectAll().where('instance_id', '=', instanceId).executeTakeFirst();
  if (!row) return null;
  return {
    sourceId: row.source_id,
    sourceName: row.source_name,
    target: JSON.parse(row.target) as RecoveryTarget,
    backupId: row.backup_id,
    lastReplayedAt: row.last_replayed_at,
    timeline: row.timeline,
    recoverySeconds: row.recovery_ms / 1000,
  };
}

/** The newest restore from `sourceId` that replayed WAL: its pace estimates the next one's duration. */
export async function lastPointRestoreFrom(db: Db, sourceId: string): Promise<{ recoveryMs: number; walBytes: number } | null> {
  const row = await db
    .selectFrom('point_restores')
    .select(['recovery_ms', 'wal_bytes'])
    .where('source_id', '=', sourceId)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? { recoveryMs: row.recovery_ms, walBytes: Number(row.wal_bytes) } : null;
}
