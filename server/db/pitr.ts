import type { RecoveryCheck, RecoveryTarget, RestorePoint, RestoredFrom } from '../../contracts/pitr';
import type { Db, PointRestoresTable, RecoveryChecksTable, RestorePointsTable } from './schema';

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

export async function insertRecoveryCheck(db: Db, row: RecoveryChecksTable): Promise<void> {
  await db.insertInto('recovery_checks').values(row).execute();
}

/** The newest drill or verification of an instance. */
export async function lastRecoveryCheck(db: Db, instanceId: string, kind: RecoveryCheck['kind']): Promise<RecoveryCheck | null> {
  const row = await db.selectFrom('recovery_checks').selectAll().where('instance_id', '=', instanceId).where('kind', '=', kind).orderBy('at', 'desc').limit(1).executeTakeFirst();
  if (!row) return null;
  return {
    kind: row.kind,
    at: row.at,
    ok: row.ok === 1,
    targetTime: row.target_time,
    backupId: row.backup_id,
    recoverySeconds: row.recovery_ms === null ? null : row.recovery_ms / 1000,
    detail: row.detail,
  };
}

/** The pace of the newest successful drill: how long it took to replay how much WAL. */
export async function lastDrillPace(db: Db, instanceId: string): Promise<{ recoveryMs: number; walBytes: number } | null> {
  const row = await db
    .selectFrom('recovery_checks')
    .select(['recovery_ms', 'wal_bytes'])
    .where('instance_id', '=', instanceId)
    .where('kind', '=', 'drill')
    .where('ok', '=', 1)
    .orderBy('at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && row.recovery_ms !== null && row.wal_bytes !== null ? { recoveryMs: row.recovery_ms, walBytes: Number(row.wal_bytes) } : null;
}
