import { isPhysicalFormat } from '../../contracts/backupValues';
import { physicalOnly } from './backupContext';
import type { Backup, BackupContents, BackupDeletedPayload, BackupKind, BackupUpdatedPayload, RetentionPreview } from '../../contracts/backups';
import { formatBytes } from '../../contracts/backupValues';
import { backupsOfInstance, deleteBackupRow, findBackupRow, findSchedule, toBackup, type BackupRow } from '../db/backups';
import { findInstanceRow } from '../db/instances';
import { HttpProblem } from '../http/problems';
import type { BackupContext } from './backupContext';
import { planRetention, type RetentionPolicy } from './retention';

// Which backups are kept: deleting by hand, pinning, and pruning by the instance's retention policy.

export async function deleteBackup(ctx: BackupContext, instanceId: string, kind: BackupKind, backupId: string, force: boolean): Promise<{ id: string }> {
  const row = await findBackupRow(ctx.db, backupId);
  if (!row || row.instance_id !== instanceId || row.kind !== kind) throw new HttpProblem(404, `The instance has no ${kind} backup ${backupId}.`);
  if (row.status === 'running' || row.status === 'pending') throw new HttpProblem(409, 'The backup is still being taken: wait for it to finish.');
  if (isPhysicalFormat(row.format) && row.status === 'succeeded') throw new HttpProblem(409, physicalOnly.delete);
  if (ctx.verifying.get(instanceId) === backupId) throw new HttpProblem(409, 'The backup is being verified: wait for it to finish.');
  if (row.status === 'succeeded' && !force) {
    const good = (await backupsOfInstance(ctx.db, instanceId, kind)).filter((b) => b.status === 'succeeded' && !isPhysicalFormat(b.format));
    if (good.length === 1) {
      throw new HttpProblem(
        409,
        `This is the last good ${kind} backup of ${row.instance_name}: without it there is nothing to restore from. Delete with force to delete it anyway.`,
        { title: 'Last good backup' },
      );
    }
  }
  await remove(ctx, row, 'deleted');
  return { id: backupId };
}

async function remove(ctx: BackupContext, row: BackupRow, why: string) {
  if (row.storage_key) await ctx.deps.storage.delete(row.storage_key);
  await deleteBackupRow(ctx.db, row.id);
  await ctx.publish('BackupDeleted', { id: row.id, instanceId: row.instance_id } satisfies BackupDeletedPayload, row.instance_id);
  const instanceExists = (await findInstanceRow(ctx.db, row.instance_id)) !== undefined;
  await ctx.deps.logs.write({
    level: 'information',
    instanceId: instanceExists ? row.instance_id : null,
    handler: 'backup',
    message: `Backup ${row.id} of ${row.instance_name} (${row.kind}, ${formatBytes(row.size_bytes)}) ${why}.`,
  });
}

async function policyOf(ctx: BackupContext, instanceId: string): Promise<RetentionPolicy> {
  const schedule = await findSchedule(ctx.db, instanceId);
  return { keepLast: schedule?.keep_last ?? null, keepDays: schedule?.keep_days ?? null, includeManual: schedule?.include_manual === 1 };
}

/** The instance's database backups and those of them a policy deletes now. */
async function planFor(ctx: BackupContext, instanceId: string, policy: RetentionPolicy): Promise<{ rows: BackupRow[]; doomed: BackupRow[] }> {
  // Physical backups leave with the recovery window (pgBackRest's expiry), not by this policy.
  const rows = (await backupsOfInstance(ctx.db, instanceId, 'database')).filter((r) => !isPhysicalFormat(r.format));
  const candidates = rows.map((r) => ({
    id: r.id,
    status: r.status,
    trigger: r.trigger,
    pinned: r.pinned === 1,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  }));
  const doomed = new Set(planRetention(candidates, policy, ctx.now()));
  return { rows, doomed: rows.filter((r) => doomed.has(r.id)) };
}

export async function retentionPreview(ctx: BackupContext, instanceId: string, policy: RetentionPolicy): Promise<RetentionPreview> {
  const { rows, doomed } = await planFor(ctx, instanceId, policy);
  return {
    wouldDelete: doomed.map((r) => toBackup(r)),
    keptCount: rows.filter((r) => r.status === 'succeeded').length - doomed.length,
    freedBytes: doomed.reduce((sum, r) => sum + (r.size_bytes ?? 0), 0),
  };
}

/** Applies the instance's retention; runs only after a new database backup succeeded. */
export async function pruneBackups(ctx: BackupContext, instanceId: string): Promise<string[]> {
  const { doomed } = await planFor(ctx, instanceId, await policyOf(ctx, instanceId));
  for (const row of doomed) {
    if (ctx.verifying.get(instanceId) === row.id) continue;
    await remove(ctx, row, 'pruned by retention');
  }
  return doomed.map((r) => r.id);
}

/**
 * Physical backups pgBackRest expired (the window moved past them) leave the list too: `kept` are the
 * labels its repository still holds. Answers the ids removed.
 */
export async function forgetExpiredPhysical(ctx: BackupContext, instanceId: string, kept: ReadonlySet<string>): Promise<string[]> {
  const gone = (await backupsOfInstance(ctx.db, instanceId, 'database')).filter((row) => {
    if (!isPhysicalFormat(row.format) || row.status !== 'succeeded' || !row.contents) return false;
    const label = (JSON.parse(row.contents) as BackupContents).physical?.label;
    return label !== undefined && !kept.has(label);
  });
  for (const row of gone) await remove(ctx, row, 'expired with the recovery window');
  return gone.map((r) => r.id);
}

/** Pins a backup (retention never trims it) or unpins it; pages showing it hear BackupUpdated. */
export async function pinBackup(ctx: BackupContext, instanceId: string, backupId: string, pinned: boolean): Promise<Backup> {
  const row = await ctx.requireBackup(instanceId, backupId);
  await ctx.change(row.id, { pinned: pinned ? 1 : 0 });
  const backup = (await ctx.find(row.id))!;
  await ctx.publish('BackupUpdated', { backup } satisfies BackupUpdatedPayload, row.instance_id);
  return backup;
}

/** A retention policy in words, for the log. */
export function describePolicy(policy: RetentionPolicy): string {
  const parts: string[] = [];
  if (policy.keepLast !== null) parts.push(`keep the last ${policy.keepLast}`);
  if (policy.keepDays !== null) parts.push(`keep ${policy.keepDays} day(s)`);
  if (parts.length === 0) return 'none (keep everything)';
  return `${parts.join(' and ')} of ${policy.includeManual ? 'all unpinned' : 'scheduled'} backups`;
}
