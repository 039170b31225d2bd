import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type {
  Backup,
  BackupCompletedPayload,
  BackupContents,
  BackupKind,
  BackupProgressPayload,
  BackupProgressState,
  BackupTrigger,
  BackupUpdatedPayload,
} from '../../contracts/backups';
import { formatBytes, physicalFormatPrefix, type DatabaseBackupMethod } from '../../contracts/backupValues';
import type { PhysicalBackupKind } from '../../contracts/pitr';
import { pgSuperuserPassword, type PgEngine } from '../engines/pg';
import type { PgArchive } from '../engines/pgArchive';
import { physicalBackups } from '../pitr/recoveryWindow';
import { backupsOfInstance, insertBackup } from '../db/backups';
import { findGroup, groupUsage } from '../db/groups';
import { findInstanceRow, updateInstanceRow, type InstanceRow } from '../db/instances';
import { measuredSize } from '../db/metrics';
import type { InstanceRuntime } from '../engines/engine';
import { writeInstanceFile } from '../engines/instanceFiles';
import { giveToEngineUser } from '../engines/processRunner';
import { existingInstanceUser } from '../engines/instanceUsers';
import { HttpProblem } from '../http/problems';
import { packInto, sizeOnDisk } from './archive';
import { message, storageKey, type BackupContext, type RunningBackup } from './backupContext';
import { pruneBackups } from './backupRetention';

const progressIntervalMs = 250;

/**
 * Starts a backup and answers it at once (202); `done` settles with the finished backup. A database
 * backup needs the instance running; a file backup of a stopped instance also copies its data folder.
 * One backup per instance at a time; a backup listed as succeeded is whole and durable in storage.
 */
export async function takeBackup(
  ctx: BackupContext,
  instanceId: string,
  kind: BackupKind,
  trigger: BackupTrigger,
  author: string | null,
  method: DatabaseBackupMethod = 'dump',
): Promise<{ backup: Backup; done: Promise<Backup> }> {
  const instance = await ctx.requireInstance(instanceId);
  const physical = kind === 'database' && method !== 'dump' ? method : null;
  if (physical && instance.type !== 'pg') throw new HttpProblem(400, `A ${physical} backup is a physical backup of a PostgreSQL instance; ${instance.name} is not one.`);
  if (instance.status === 'unInitialized') throw new HttpProblem(409, `${instance.name} has no data yet: there is nothing to back up.`);
  if (ctx.running.has(instanceId)) {
    throw new HttpProblem(409, `A backup of ${instance.name} is being taken: wait for it to finish.`);
  }
  const engine = ctx.deps.instances.engine(instance.type);
  const rt = ctx.deps.instances.runtime(instance);
  const online = engine.pid(rt) !== null;
  if (kind === 'database' && !online) {
    throw new HttpProblem(409, `${instance.name} is not running: start it to take a database backup, or take a file backup of the stopped instance.`);
  }
  const archive = physical ? (engine as PgEngine).archive : null;
  if (physical && !archive) throw new HttpProblem(409, 'WAL archiving is off on this server: only dumps can be taken.');
  const id = randomUUID();
  const withData = kind === 'file' && !online;
  const entry: RunningBackup = { backupId: id, progress: { bytes: 0, percent: 0, step: 'starting' }, lastSent: 0 };
  // Claimed before the first await that could let a second request in.
  ctx.running.set(instanceId, entry);
  try {
    await checkBackupQuota(ctx, instance, kind);
    await insertBackup(ctx.db, {
      id,
      instance_id: instanceId,
      instance_name: instance.name,
      engine: instance.type,
      kind,
      trigger,
      status: 'running',
      started_at: ctx.now().toISOString(),
      finished_at: null,
      size_bytes: null,
      sha256: null,
      format: physical ? `${physicalFormatPrefix}${physical}` : kind === 'file' ? `tar (configuration and logs${withData ? ', data folder copied cold' : ''})` : 'pending',
      engine_version: instance.engine_version,
      error: null,
      storage_key: null,
      contents: null,
      verification: null,
      created_by: author,
    });
  } catch (error) {
    ctx.running.delete(instanceId);
    throw error;
  }
  const backup = (await ctx.find(id))!;
  await ctx.publish('BackupUpdated', { backup } satisfies BackupUpdatedPayload, instance.id);
  await ctx.deps.logs.write({
    level: 'information',
    instanceId,
    handler: 'backup',
    message: `${kind === 'database' ? 'Database' : 'File'} backup ${id} started (${trigger}${author ? ` by ${author}` : ''}).`,
  });
  const job = physical && archive ? executePhysical(ctx, id, instance, rt, physical, archive, entry) : execute(ctx, id, instance, rt, kind, withData, entry);
  const done = ctx.track(
    job.finally(() => {
      // Only its own claim: a backup started once BackupCompleted went out holds the instance now.
      if (ctx.running.get(instanceId) === entry) ctx.running.delete(instanceId);
    }),
  );
  return { backup, done };
}

async function execute(
  ctx: BackupContext,
  id: string,
  instance: InstanceRow,
  rt: InstanceRuntime,
  kind: BackupKind,
  withData: boolean,
  entry: RunningBackup,
): Promise<Backup> {
  const engine = ctx.deps.instances.engine(instance.type);
  const staging = path.join(ctx.deps.instances.instancesDir, `.backup-${id}`);
  const startedAt = Date.now();
  let stagingRemoved: Promise<void>;
  const report = (progress: BackupProgressState, force = false) => {
    entry.progress = progress;
    if (!force && Date.now() - entry.lastSent < progressIntervalMs) return;
    entry.lastSent = Date.now();
    const payload: BackupProgressPayload = { backupId: id, instanceId: instance.id, ...progress };
    void ctx.publish('BackupProgress', payload, instance.id);
  };
  try {
    fs.mkdirSync(staging, { mode: 0o700 });
    // The instance's own tools (etcdctl) write into it; pg's dumps are written by the server.
    giveToEngineUser(existingInstanceUser(rt), staging);
    let contents: BackupContents;
    let format: string | null = null;
    let readFrom: string | undefined;
    let parts: { dir: string; paths: string[] }[];
    // Database work maps to 0–90 %, packing into the archive to 90–100 %.
    if (kind === 'database') {
      const taken = await engine.backupDatabase(rt, staging, (p) =>
        report({ bytes: p.bytes, percent: p.percent === null ? null : Math.round(p.percent * 0.9 * 10) / 10, step: p.step }),
      );
      contents = taken.contents;
      format = taken.format;
      readFrom = taken.readFrom;
      parts = [{ dir: staging, paths: fs.readdirSync(staging) }];
    } else {
      const paths = engine.fileBackupPaths(rt, withData);
      contents = { dataDirectory: withData };
      const manifest = { kind: 'file', engine: instance.type, instance: instance.name, takenAt: ctx.now().toISOString(), paths, dataDirectory: withData };
      writeInstanceFile(path.join(staging, 'manifest.json'), JSON.stringify(manifest, null, 2), { within: staging });
      parts = [
        { dir: staging, paths: ['manifest.json'] },
        { dir: rt.dir, paths },
      ];
    }
    const total = sizeOnDisk(parts) || 1;
    const packedFrom = kind === 'database' ? 90 : 0;
    const step = kind === 'database' ? 'writing the archive' : withData ? 'copying configuration, logs and data' : 'copying configuration and logs';
    report({ bytes: entry.progress.bytes, percent: packedFrom, step }, true);
    const key = storageKey(instance.id, id);
    // Storage answers only once the file is whole, fsynced and renamed into place.
    const stored = await ctx.deps.storage.put(key, (file) =>
      packInto({ parts }, file, (bytes) =>
        report({
          bytes: Math.max(bytes, kind === 'database' ? entry.progress.bytes : 0),
          percent: Math.min(99.9, Math.round((packedFrom + ((100 - packedFrom) * bytes) / total) * 10) / 10),
          step,
        }),
      ),
    );
    const finishedAt = ctx.now().toISOString();
    await ctx.change(id, {
      status: 'succeeded',
      finished_at: finishedAt,
      size_bytes: stored.sizeBytes,
      sha256: stored.sha256,
      storage_key: stored.key,
      contents: JSON.stringify(contents),
      ...(format ? { format } : {}),
    });
    entry.progress = { bytes: stored.sizeBytes, percent: 100, step: 'done' };
    const source = readFrom ? ` (read from ${readFrom})` : '';
    await succeeded(ctx, instance.id, finishedAt, `Backup ${id} succeeded${source}: ${formatBytes(stored.sizeBytes)} in ${seconds(startedAt)} s, sha256 ${stored.sha256}.`, {
      backupId: id,
      sha256: stored.sha256,
      sizeBytes: stored.sizeBytes,
    });
  } catch (error) {
    await failed(ctx, instance.id, id, await failureReason(ctx, instance.id, kind, rt, error));
  } finally {
    // Removed while the outcome is announced: the staging copy is no part of it.
    stagingRemoved = fs.promises.rm(staging, { recursive: true, force: true });
  }
  const backup = await completed(ctx, instance.id, id, entry);
  await stagingRemoved;
  if (backup.status === 'succeeded' && kind === 'database') await pruneBackups(ctx, instance.id).catch(() => undefined);
  return backup;
}

/**
 * A physical backup with pgBackRest into the instance's repository: nothing goes to Warden's storage.
 * The set is restored to a point in time (DESIGN §12) and expired by the window, not deleted by hand.
 */
async function executePhysical(
  ctx: BackupContext,
  id: string,
  instance: InstanceRow,
  rt: InstanceRuntime,
  kind: PhysicalBackupKind,
  archive: PgArchive,
  entry: RunningBackup,
): Promise<Backup> {
  const startedAt = Date.now();
  const report = (progress: BackupProgressState) => {
    entry.progress = progress;
    if (Date.now() - entry.lastSent < progressIntervalMs) return;
    entry.lastSent = Date.now();
    void ctx.publish('BackupProgress', { backupId: id, instanceId: instance.id, ...progress } satisfies BackupProgressPayload, instance.id);
  };
  try {
    // The bytes a full backup copies, for the progress's byte count: the data folder as the probes
    // last measured it. pgBackRest's percent of a differential or incremental one is of the files it
    // copies, which nothing tells beforehand: those count percent only.
    const expectedBytes = kind === 'full' ? ((await measuredSize(ctx.db, instance.id)) ?? 0) : 0;
    // A cluster's backup copies its files from a replica when one streams, sparing the leader the
    // reads (pgBackRest still starts and stops the backup on the leader, which it finds itself).
    const fromStandby = rt.cluster !== undefined && (await ctx.deps.instances.engine(instance.type).members(rt)).some((m) => m.role !== 'leader' && m.state === 'running');
    const source = fromStandby ? 'a replica' : rt.cluster ? 'the leader' : null;
    await archive.backup(
      rt,
      kind,
      pgSuperuserPassword(rt),
      (percent) =>
        report({ bytes: Math.round((expectedBytes * percent) / 100), percent: Math.min(99.9, percent), step: `copying the data folder (${kind}${source ? `, from ${source}` : ''})` }),
      { fromStandby },
    );
    // The first set begun since this backup was: pgBackRest runs one backup of a stanza at a time,
    // and dates a set's start to the second.
    const taken = physicalBackups(await archive.info(rt)).find((b) => Date.parse(b.startedAt) >= Math.floor(startedAt / 1000) * 1000);
    if (!taken) throw new Error('pgBackRest finished but lists no new backup.');
    const contents: BackupContents = {
      lsn: taken.lsnStop,
      physical: { label: taken.id, walStart: taken.walStart, walStop: taken.walStop, lsnStart: taken.lsnStart, lsnStop: taken.lsnStop, databaseBytes: taken.databaseBytes },
    };
    const finishedAt = ctx.now().toISOString();
    await ctx.change(id, { status: 'succeeded', finished_at: finishedAt, size_bytes: taken.sizeBytes, contents: JSON.stringify(contents) });
    entry.progress = { bytes: taken.sizeBytes, percent: 100, step: 'done' };
    await succeeded(
      ctx,
      instance.id,
      finishedAt,
      `Physical ${kind} backup ${taken.id} succeeded${source ? ` (copied from ${source})` : ''}: ${formatBytes(taken.sizeBytes)} kept of ${formatBytes(taken.databaseBytes)} in ${seconds(startedAt)} s, WAL ${taken.walStart}–${taken.walStop}.`,
      { backupId: id, label: taken.id },
    );
  } catch (error) {
    await failed(ctx, instance.id, id, await failureReason(ctx, instance.id, 'database', rt, error));
  }
  return completed(ctx, instance.id, id, entry);
}

const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(1);

/** A backup listed as succeeded: the instance's last backup time moves on, and its log says so. */
async function succeeded(ctx: BackupContext, instanceId: string, finishedAt: string, message: string, properties: Record<string, unknown>) {
  if (await findInstanceRow(ctx.db, instanceId)) {
    await updateInstanceRow(ctx.db, instanceId, { last_backup_at: finishedAt });
    await ctx.deps.instances.publishInstance('InstanceUpdated', instanceId);
  }
  await ctx.deps.logs.write({ level: 'information', instanceId, handler: 'backup', message, properties });
}

async function failed(ctx: BackupContext, instanceId: string, id: string, reason: string) {
  await ctx.change(id, { status: 'failed', finished_at: ctx.now().toISOString(), error: reason });
  await ctx.deps.logs.write({ level: 'error', instanceId, handler: 'backup', message: `Backup ${id} failed: ${reason}`, properties: { backupId: id } });
}

/** The instance may take its next backup; pages showing it hear how this one ended. */
async function completed(ctx: BackupContext, instanceId: string, id: string, entry: RunningBackup): Promise<Backup> {
  if (ctx.running.get(instanceId) === entry) ctx.running.delete(instanceId);
  const backup = (await ctx.find(id))!;
  await ctx.publish('BackupCompleted', { backup } satisfies BackupCompletedPayload, instanceId);
  return backup;
}

/**
 * Why a backup failed, in the operator's terms first: a database backup cut off by a stop or a
 * restart of its instance (or by the engine dying) says so, then gives the engine's own words.
 */
async function failureReason(ctx: BackupContext, instanceId: string, kind: BackupKind, rt: InstanceRuntime, error: unknown): Promise<string> {
  const words = message(error);
  if (kind !== 'database') return words;
  const row = await findInstanceRow(ctx.db, instanceId).catch(() => undefined);
  const engine = row ? ctx.deps.instances.engine(row.type) : null;
  const cause =
    row?.operation_kind === 'restart'
      ? 'The instance was restarted during the backup'
      : row?.operation_kind === 'stop' || row?.desired_state === 'stopped'
        ? 'The instance was stopped during the backup'
        : engine && engine.pid(rt) === null
          ? 'The instance stopped running during the backup'
          : null;
  return cause ? `${cause}: ${words}` : words;
}

/**
 * 409 when the instance's group keeps as many backup bytes as its quota allows, or would with one
 * more backup the size of the instance's last one of this kind (the best guess of the new one's size).
 */
async function checkBackupQuota(ctx: BackupContext, instance: InstanceRow, kind: BackupKind) {
  if (!instance.group_id) return;
  const group = await findGroup(ctx.db, instance.group_id);
  const max = group?.quota.maxBackupBytes ?? null;
  if (!group || max === null) return;
  const kept = (await groupUsage(ctx.db, group.id)).backupBytes;
  const last = (await backupsOfInstance(ctx.db, instance.id, kind)).find((b) => b.status === 'succeeded' && b.size_bytes !== null);
  const expected = last?.size_bytes ?? 0;
  if (kept >= max || kept + expected > max) {
    throw new HttpProblem(
      409,
      `group '${group.name}' has reached its quota of ${formatBytes(max)} of backups (${formatBytes(kept)} kept${expected > 0 ? `, the last backup of ${instance.name} took ${formatBytes(expected)}` : ''}): delete old backups or ask an admin to raise the quota`,
      { title: 'Quota reached' },
    );
  }
}

/** The update's safety net: a database backup of a running instance, else a cold file backup. */
export async function backupBeforeUpdate(ctx: BackupContext, instanceId: string): Promise<string> {
  const instance = await ctx.requireInstance(instanceId);
  const online = ctx.deps.instances.engine(instance.type).pid(ctx.deps.instances.runtime(instance)) !== null;
  const { done } = await takeBackup(ctx, instanceId, online ? 'database' : 'file', 'pre-update', null);
  const backup = await done;
  if (backup.status !== 'succeeded') throw new Error(`The pre-update backup failed, so the instance was not updated: ${backup.error}`);
  return `pre-update ${backup.kind} backup ${backup.id}`;
}
