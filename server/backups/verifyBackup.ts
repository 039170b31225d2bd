import { isPhysicalFormat } from '../../contracts/backupValues';
import { physicalOnly } from './backupContext';
import fs from 'node:fs';
import path from 'node:path';
import type { Backup, BackupContents, BackupUpdatedPayload, BackupVerification, RestoreSkip } from '../../contracts/backups';
import { toBackup, type BackupRow } from '../db/backups';
import { giveTreeToEngineUser } from '../engines/processRunner';
import { instanceUser } from '../engines/instanceUsers';
import { HttpProblem } from '../http/problems';
import { unpack } from './archive';
import { message, type BackupContext } from './backupContext';
import { describeSkipped } from './restoreBackup';

/**
 * Restores the backup into a scratch instance, starts it and compares what it holds with what the
 * backup holds (rows counted from its dumps where it recorded estimates); the result is kept on the backup. A file backup is checked against its checksum
 * and unpacked. Answers at once; the outcome goes out as BackupUpdated.
 */
export async function verifyBackup(ctx: BackupContext, instanceId: string, backupId: string): Promise<{ backup: Backup; done: Promise<Backup> }> {
  const row = await ctx.requireBackup(instanceId, backupId);
  if (isPhysicalFormat(row.format)) throw new HttpProblem(409, physicalOnly.verify);
  if (row.status !== 'succeeded' && row.status !== 'corrupt') {
    throw new HttpProblem(409, `The backup is ${row.status}: only a finished backup can be verified.`);
  }
  if (ctx.verifying.has(instanceId)) throw new HttpProblem(409, 'A backup of this instance is being verified: wait for it to finish.');
  ctx.verifying.set(instanceId, backupId);
  const backup = ctx.view(toBackup(row));
  await ctx.publish('BackupUpdated', { backup } satisfies BackupUpdatedPayload, instanceId);
  const done = ctx.track(
    runVerification(ctx, row).finally(() => {
      if (ctx.verifying.get(instanceId) === backupId) ctx.verifying.delete(instanceId);
    }),
  );
  return { backup, done };
}

async function runVerification(ctx: BackupContext, row: BackupRow): Promise<Backup> {
  const started = Date.now();
  let ok = false;
  let detail: string;
  let corrupt = false;
  let skipped: RestoreSkip[] = [];
  const staging = path.join(ctx.deps.instances.instancesDir, `.backup-verify-${row.id}`);
  let dispose: (() => Promise<void>) | null = null;
  try {
    fs.mkdirSync(staging, { mode: 0o700 });
    const actual = await unpack(ctx.deps.storage.read(row.storage_key!), staging);
    if (actual !== row.sha256) {
      corrupt = true;
      detail = `Checksum mismatch: the stored file hashes to ${actual}, the backup recorded ${row.sha256}.`;
    } else if (row.kind === 'file') {
      ok = true;
      detail = 'The checksum matches and the archive unpacks.';
    } else {
      const recorded = JSON.parse(row.contents ?? '{}') as BackupContents;
      const scratch = await ctx.deps.instances.scratch(row.engine, row.id, row.instance_id);
      dispose = scratch.dispose;
      // The scratch instance's own user restores from it.
      giveTreeToEngineUser(instanceUser(scratch.rt), staging);
      const engine = ctx.deps.instances.engine(row.engine);
      skipped = (await engine.restoreDatabase(staging, scratch.rt, {}))?.skipped ?? [];
      // Backups that recorded estimates are held to the exact counts of what they hold.
      const expected = (await engine.dumpedContents?.(staging, scratch.rt, recorded)) ?? recorded;
      const found = await engine.inspect(scratch.rt, expected);
      const differences = compareContents(expected, found);
      ok = differences.length === 0;
      detail = ok
        ? `Restored into a scratch instance and matched: ${describeContents(expected)} (${((Date.now() - started) / 1000).toFixed(1)} s).`
        : `Restored, but the data differs: ${differences.slice(0, 10).join('; ')}${differences.length > 10 ? ` and ${differences.length - 10} more` : ''}.`;
      if (skipped.length > 0) detail += ` ${describeSkipped(skipped)}`;
    }
  } catch (error) {
    detail = `Verification failed: ${message(error)}`;
  } finally {
    await dispose?.().catch(() => undefined);
    fs.rmSync(staging, { recursive: true, force: true });
  }
  const verification: BackupVerification = { at: ctx.now().toISOString(), ok, detail, ...(skipped.length > 0 && { skipped }) };
  await ctx.change(row.id, { verification: JSON.stringify(verification), ...(corrupt ? { status: 'corrupt' as const } : {}) });
  await ctx.deps.logs.write({
    level: !ok ? 'error' : skipped.length > 0 ? 'warning' : 'information',
    instanceId: row.instance_id,
    handler: 'backup',
    message: `Backup ${row.id} ${ok ? 'verified' : 'failed verification'}: ${detail}`,
    ...(skipped.length > 0 && { properties: { skipped } }),
  });
  // Over before it is told, so the backup that goes out no longer says it is being verified.
  ctx.verifying.delete(row.instance_id);
  const backup = (await ctx.find(row.id))!;
  await ctx.publish('BackupUpdated', { backup } satisfies BackupUpdatedPayload, row.instance_id);
  return backup;
}

/** Differences between what a backup recorded and what a restore of it holds, in words. */
export function compareContents(recorded: BackupContents, found: BackupContents): string[] {
  const differences: string[] = [];
  for (const database of recorded.databases ?? []) {
    const restored = found.databases?.find((d) => d.name === database.name);
    if (!restored) {
      differences.push(`database ${database.name} is missing`);
      continue;
    }
    for (const [table, rows] of Object.entries(database.rows)) {
      const got = restored.rows[table];
      if (got === undefined) differences.push(`${database.name}: table ${table} is missing`);
      else if (got !== rows) differences.push(`${database.name}: ${table} has ${got} rows, the backup recorded ${rows}`);
    }
    for (const table of Object.keys(restored.rows)) {
      if (!(table in database.rows)) differences.push(`${database.name}: table ${table} was not in the backup`);
    }
  }
  if (recorded.keyCount !== undefined && found.keyCount !== recorded.keyCount) {
    differences.push(`${found.keyCount ?? 'no'} keys, the backup recorded ${recorded.keyCount}`);
  }
  if (recorded.revision !== undefined && found.revision !== recorded.revision) {
    differences.push(`revision ${found.revision ?? 'unknown'}, the backup recorded ${recorded.revision}`);
  }
  return differences;
}

function describeContents(contents: BackupContents): string {
  if (contents.databases) {
    const tables = contents.databases.reduce((sum, d) => sum + Object.keys(d.rows).length, 0);
    const rows = contents.databases.reduce((sum, d) => sum + Object.values(d.rows).reduce((a, b) => a + b, 0), 0);
    return `${contents.databases.length} database(s), ${tables} table(s), ${rows} row(s)`;
  }
  return `revision ${contents.revision}, ${contents.keyCount} key(s)`;
}
