import fs from 'node:fs';
import path from 'node:path';
import { unfinishedBackups } from '../db/backups';
import { storageKey, type BackupContext } from './backupContext';

/**
 * After a server start: backups cut off by the stop are failed (never listed as good), partial
 * files and unpacking folders are removed.
 */
export async function recoverBackups(ctx: BackupContext): Promise<void> {
  const cut = await unfinishedBackups(ctx.db);
  for (const row of cut) {
    // A stop between the rename and the status change leaves a whole file nothing refers to.
    await ctx.deps.storage.delete(storageKey(row.instance_id, row.id));
    await ctx.change(row.id, {
      status: 'failed',
      finished_at: ctx.now().toISOString(),
      error: 'The server stopped while this backup was being taken; nothing of it was kept.',
    });
    await ctx.deps.logs.write({
      level: 'warning',
      instanceId: row.instance_id,
      handler: 'backup',
      message: `Backup ${row.id} (${row.kind}) was cut off by a server stop and is marked failed.`,
    });
  }
  const partial = await ctx.deps.storage.sweep();
  for (const name of stagingLeftovers(ctx)) fs.rmSync(path.join(ctx.deps.instances.instancesDir, name), { recursive: true, force: true });
  if (cut.length > 0 || partial > 0) {
    await ctx.deps.logs.write({
      level: 'information',
      instanceId: null,
      handler: 'backup',
      message: `Recovered after a stop: ${cut.length} unfinished backup(s) marked failed, ${partial} partial file(s) removed.`,
    });
  }
}

function stagingLeftovers(ctx: BackupContext): string[] {
  try {
    return fs.readdirSync(ctx.deps.instances.instancesDir).filter((name) => name.startsWith('.backup-'));
  } catch {
    return [];
  }
}
