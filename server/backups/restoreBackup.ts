import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { findBackupRow } from '../db/backups';
import type { InstanceRuntime } from '../engines/engine';
import { giveTreeToEngineUser, instanceUser } from '../engines/processRunner';
import { HttpProblem } from '../http/problems';
import { unpack } from './archive';
import type { BackupContext } from './backupContext';

// Restoring a database backup into a new instance (a clone from a backup).

/** Throws 404/409 problems when the backup cannot seed a clone of this instance. */
export async function checkCloneSource(ctx: BackupContext, instanceId: string, backupId: string): Promise<void> {
  const row = await ctx.requireBackup(instanceId, backupId);
  if (row.kind !== 'database') throw new HttpProblem(409, 'Only a database backup can seed a new instance.');
  if (row.status !== 'succeeded') throw new HttpProblem(409, `The backup is ${row.status}: only a succeeded backup can be restored.`);
}

/** Unpacks the backup (refusing it if its bytes changed) and lets the engine make `target` from it. */
export async function restoreInto(ctx: BackupContext, backupId: string, target: InstanceRuntime, parameters: Record<string, string>): Promise<void> {
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
      await ctx.deps.instances.engine(row.engine).restoreDatabase(staging, target, parameters);
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
  })();
  await ctx.track(work);
}
