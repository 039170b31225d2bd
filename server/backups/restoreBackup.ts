import { isPhysicalFormat } from '../../contracts/backupValues';
import { physicalOnly } from './backupContext';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RestoreSkip } from '../../contracts/backups';
import { findBackupRow } from '../db/backups';
import type { InstanceRuntime } from '../engines/engine';
import { giveTreeToEngineUser } from '../engines/processRunner';
import { instanceUser } from '../engines/instanceUsers';
import { HttpProblem } from '../http/problems';
import { unpack } from './archive';
import type { BackupContext } from './backupContext';

// Restoring a database backup into a new instance (a clone from a backup).

/** Throws 404/409 problems when the backup cannot seed a clone of this instance. */
export async function checkCloneSource(ctx: BackupContext, instanceId: string, backupId: string): Promise<void> {
  const row = await ctx.requireBackup(instanceId, backupId);
  if (row.kind !== 'database') throw new HttpProblem(409, 'Only a database backup can seed a new instance.');
  if (isPhysicalFormat(row.format)) throw new HttpProblem(409, physicalOnly.restore);
  if (row.status !== 'succeeded') throw new HttpProblem(409, `The backup is ${row.status}: only a succeeded backup can be restored.`);
}

/** Where a restore tells what it left out: an instance's log, with properties of the caller's. */
export interface RestoreLog {
  instanceId: string;
  properties?: Record<string, unknown>;
}

/**
 * Unpacks the backup (refusing it if its bytes changed) and lets the engine make `target` from it.
 * What the restore left out goes to the log named, and is answered.
 */
export async function restoreInto(
  ctx: BackupContext,
  backupId: string,
  target: InstanceRuntime,
  parameters: Record<string, string>,
  log: RestoreLog,
): Promise<RestoreSkip[]> {
  const row = await findBackupRow(ctx.db, backupId);
  if (!row || row.status !== 'succeeded' || !row.storage_key) throw new Error('The backup is gone or not usable any more.');
  const staging = path.join(ctx.deps.instances.instancesDir, `.backup-restore-${randomUUID()}`);
  const work = (async () => {
    try {
      fs.mkdirSync(staging, { mode: 0o700 });
      const actual = await unpack(ctx.deps.storage.read(row.storage_key!), staging);
      if (actual !== row.sha256) {
        await ctx.markCorrupt(row, actual, 'a restore');
        throw new Error('The backup file no longer matches its checksum (marked corrupt): nothing was restored.');
      }
      giveTreeToEngineUser(instanceUser(target), staging);
      return (await ctx.deps.instances.engine(row.engine).restoreDatabase(staging, target, parameters))?.skipped ?? [];
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
  })();
  const skipped = await ctx.track(work);
  if (skipped.length > 0) {
    await ctx.deps.logs.write({
      level: 'warning',
      instanceId: log.instanceId,
      handler: 'backup',
      message: `Restoring backup ${backupId}: ${describeSkipped(skipped)}`,
      properties: { ...log.properties, backupId, skipped },
    });
  }
  return skipped;
}

/** What a restore left out, in a sentence (the first few; the rest are counted). */
export function describeSkipped(skipped: RestoreSkip[]): string {
  const named = skipped.slice(0, 5).map((s) => `${s.database === null ? '' : `${s.database}: `}${s.what} (${s.reason})`);
  const more = skipped.length > named.length ? ` and ${skipped.length - named.length} more` : '';
  return `${skipped.length} item(s) that need more than the tenant's rights were left out: ${named.join('; ')}${more}.`;
}
