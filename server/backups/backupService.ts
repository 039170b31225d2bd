import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type {
  AllBackupsPage,
  AllBackupsQuery,
  Backup,
  BackupCompletedPayload,
  BackupContents,
  BackupDeletedPayload,
  BackupKind,
  BackupProgressPayload,
  BackupProgressState,
  BackupSchedule,
  BackupsQuery,
  BackupsSummary,
  BackupTrigger,
  BackupUpdatedPayload,
  DownloadUrl,
  RetentionPreview,
  UpdateScheduleRequest,
} from '../../contracts/backups';
import { downloadUrlLifetimeMs, formatBytes } from '../../contracts/backupValues';
import type { PageOf } from '../../contracts/page';
import type { Clock } from '../clock';
import type { Config } from '../config';
import {
  backupsOfInstance,
  deleteBackupRow,
  enabledSchedules,
  findBackupRow,
  findSchedule,
  insertBackup,
  listBackups,
  markScheduleRun,
  saveSchedule,
  summarize,
  toBackup,
  unfinishedBackups,
  updateBackup,
  type BackupChange,
  type BackupRow,
  type BackupSort,
} from '../db/backups';
import { findInstanceRow, updateInstanceRow, type InstanceRow } from '../db/instances';
import type { Db } from '../db/schema';
import type { InstanceRuntime } from '../engines/engine';
import { existingInstanceUser, giveToEngineUser, giveTreeToEngineUser, instanceUser } from '../engines/processRunner';
import type { Audience, EventBus } from '../hub/bus';
import { hubGroupNames } from '../hub/methods';
import { findGroup, groupUsage, memberIdsOfGroup } from '../db/groups';
import { pageWindow } from '../db/paging';
import { HttpProblem, validationProblem } from '../http/problems';
import type { InstanceBackups, InstanceService } from '../instances/instanceService';
import type { LogService } from '../logs/logService';
import { digestOf, pack, sizeOnDisk, unpack } from './archive';
import { dueSlot, nextRuns, scheduleProblems } from './cronSchedule';
import { planRetention, type RetentionPolicy } from './retention';
import { parseRange, UrlSigner } from './signedUrls';
import { writeInstanceFile } from '../engines/instanceFiles';
import { readChunkBytes, VerifyingStream, type BackupStorage } from './storage';

export interface BackupServiceDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  config: Config;
  logs: LogService;
  instances: InstanceService;
  storage: BackupStorage;
}

interface RunningBackup {
  backupId: string;
  progress: BackupProgressState;
  lastSent: number;
}

/** A download the route streams: headers decided, body verified while it flows. */
export interface DownloadPlan {
  status: 200 | 206;
  headers: Record<string, string>;
  body: Readable;
}

const defaultSchedule = { enabled: false, cron: '0 3 * * *', timeZone: 'UTC', keepLast: null, keepDays: null } as const;
const progressIntervalMs = 250;
const scheduleTickMs = 30_000;

/** Where a backup's archive is kept. */
const storageKey = (instanceId: string, backupId: string) => `${instanceId}/${backupId}.tar`;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Backups (DESIGN §5, issue "Backups"): takes database and file backups into storage so that a
 * backup listed as succeeded is whole and durable, verifies them in scratch instances, serves signed
 * downloads checked while they stream, restores them into new instances, runs schedules and prunes
 * by retention. One backup per instance at a time; every change goes out through the event bus.
 */
export class BackupService implements InstanceBackups {
  /** By instance id: the backup being taken. */
  private readonly running = new Map<string, RunningBackup>();
  /** Instance ids with a verification running. */
  private readonly verifying = new Map<string, string>();
  private readonly work = new Set<Promise<unknown>>();
  private readonly signer: UrlSigner;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly deps: BackupServiceDeps) {
    this.signer = new UrlSigner(deps.config.dataDir);
  }

  private get db() {
    return this.deps.db;
  }

  private now() {
    return this.deps.clock();
  }

  // ---- Start and stop ----

  /**
   * After a server start: backups cut off by the stop are failed (never listed as good), partial
   * files and unpacking folders are removed; then schedules missed while the server was down run once.
   */
  async start(): Promise<void> {
    await this.recover();
    await this.tick();
    this.timer = setInterval(() => void this.tick(), scheduleTickMs);
    this.timer.unref();
  }

  async recover(): Promise<void> {
    const cut = await unfinishedBackups(this.db);
    for (const row of cut) {
      // A stop between the rename and the status change leaves a whole file nothing refers to.
      await this.deps.storage.delete(storageKey(row.instance_id, row.id));
      await this.change(row.id, {
        status: 'failed',
        finished_at: this.now().toISOString(),
        error: 'The server stopped while this backup was being taken; nothing of it was kept.',
      });
      await this.deps.logs.write({
        level: 'warning',
        instanceId: row.instance_id,
        handler: 'backup',
        message: `Backup ${row.id} (${row.kind}) was cut off by a server stop and is marked failed.`,
      });
    }
    const partial = await this.deps.storage.sweep();
    for (const name of this.stagingLeftovers()) fs.rmSync(path.join(this.deps.instances.instancesDir, name), { recursive: true, force: true });
    if (cut.length > 0 || partial > 0) {
      await this.deps.logs.write({
        level: 'information',
        instanceId: null,
        handler: 'backup',
        message: `Recovered after a stop: ${cut.length} unfinished backup(s) marked failed, ${partial} partial file(s) removed.`,
      });
    }
  }

  private stagingLeftovers(): string[] {
    try {
      return fs.readdirSync(this.deps.instances.instancesDir).filter((name) => name.startsWith('.backup-'));
    } catch {
      return [];
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.race([Promise.allSettled([...this.work, this.ticking]), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
  }

  /** Resolves when no backup, verification or restore runs: tests and benchmarks wait on it. */
  async idle(): Promise<void> {
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.work.add(promise);
    void promise.catch(() => undefined).finally(() => this.work.delete(promise));
    return promise;
  }

  // ---- Reading ----

  /** A backup as stored, with its live progress while it is being taken and whether it is being verified. */
  private view(backup: Backup): Backup {
    const running = this.running.get(backup.instanceId);
    const verifying = this.verifying.get(backup.instanceId) === backup.id;
    return { ...backup, progress: running?.backupId === backup.id ? running.progress : null, verifying };
  }

  async find(id: string): Promise<Backup | undefined> {
    const row = await findBackupRow(this.db, id);
    return row && this.view(toBackup(row));
  }

  async summary(instanceId: string): Promise<BackupsSummary> {
    const rows = await backupsOfInstance(this.db, instanceId);
    const runningOf = (kind: BackupKind) => {
      const current = this.running.get(instanceId);
      const row = current && rows.find((r) => r.id === current.backupId && r.kind === kind);
      return row ? this.view(toBackup(row)) : null;
    };
    return {
      instanceId,
      database: summarize(rows.filter((r) => r.kind === 'database'), runningOf('database')),
      files: summarize(rows.filter((r) => r.kind === 'file'), runningOf('file')),
      schedule: await this.schedule(instanceId),
    };
  }

  async list(instanceId: string, kind: BackupKind, query: BackupsQuery): Promise<PageOf<Backup>> {
    const { items, total, page, pageSize } = await this.all({ ...query, kind, instanceId }, null);
    return { items, total, page, pageSize };
  }

  async all(query: AllBackupsQuery, visibleGroupIds: string[] | null): Promise<AllBackupsPage> {
    const page = await listBackups(this.db, {
      ...query,
      ...pageWindow(query),
      sort: query.sort as BackupSort | undefined,
      visibleGroupIds,
    });
    return { ...page, items: page.items.map((b) => this.view(b)) };
  }

  // ---- Taking backups ----

  busy(instanceId: string): boolean {
    return this.running.has(instanceId) || this.verifying.has(instanceId);
  }

  async keptFor(instanceId: string): Promise<{ count: number; bytes: number }> {
    const rows = await backupsOfInstance(this.db, instanceId);
    return { count: rows.length, bytes: rows.reduce((sum, r) => sum + (r.size_bytes ?? 0), 0) };
  }

  /**
   * Starts a backup and answers it at once (202); `done` settles with the finished backup. A database
   * backup needs the instance running; a file backup of a stopped instance also copies its data folder.
   */
  async take(
    instanceId: string,
    kind: BackupKind,
    trigger: BackupTrigger,
    author: string | null,
  ): Promise<{ backup: Backup; done: Promise<Backup> }> {
    const instance = await this.requireInstance(instanceId);
    if (instance.status === 'unInitialized') throw new HttpProblem(409, `${instance.name} has no data yet: there is nothing to back up.`);
    if (this.running.has(instanceId)) {
      throw new HttpProblem(409, `A backup of ${instance.name} is being taken: wait for it to finish.`);
    }
    const engine = this.deps.instances.engine(instance.type);
    const rt = this.deps.instances.runtime(instance);
    const online = engine.pid(rt) !== null;
    if (kind === 'database' && !online) {
      throw new HttpProblem(409, `${instance.name} is not running: start it to take a database backup, or take a file backup of the stopped instance.`);
    }
    const id = randomUUID();
    const withData = kind === 'file' && !online;
    const entry: RunningBackup = { backupId: id, progress: { bytes: 0, percent: 0, step: 'starting' }, lastSent: 0 };
    // Claimed before the first await that could let a second request in.
    this.running.set(instanceId, entry);
    try {
      await this.checkBackupQuota(instance, kind);
      await insertBackup(this.db, {
        id,
        instance_id: instanceId,
        instance_name: instance.name,
        engine: instance.type,
        kind,
        trigger,
        status: 'running',
        started_at: this.now().toISOString(),
        finished_at: null,
        size_bytes: null,
        sha256: null,
        format: kind === 'file' ? `tar (configuration and logs${withData ? ', data folder copied cold' : ''})` : 'pending',
        engine_version: instance.engine_version,
        error: null,
        storage_key: null,
        contents: null,
        verification: null,
        created_by: author,
      });
    } catch (error) {
      this.running.delete(instanceId);
      throw error;
    }
    const backup = (await this.find(id))!;
    await this.publish('BackupUpdated', { backup } satisfies BackupUpdatedPayload, instance.id);
    await this.deps.logs.write({
      level: 'information',
      instanceId,
      handler: 'backup',
      message: `${kind === 'database' ? 'Database' : 'File'} backup ${id} started (${trigger}${author ? ` by ${author}` : ''}).`,
    });
    const done = this.track(
      this.execute(id, instance, rt, kind, withData, entry).finally(() => {
        // Only its own claim: a backup started once BackupCompleted went out holds the instance now.
        if (this.running.get(instanceId) === entry) this.running.delete(instanceId);
      }),
    );
    return { backup, done };
  }

  private async execute(
    id: string,
    instance: InstanceRow,
    rt: InstanceRuntime,
    kind: BackupKind,
    withData: boolean,
    entry: RunningBackup,
  ): Promise<Backup> {
    const engine = this.deps.instances.engine(instance.type);
    const staging = path.join(this.deps.instances.instancesDir, `.backup-${id}`);
    const startedAt = Date.now();
    const report = (progress: BackupProgressState, force = false) => {
      entry.progress = progress;
      if (!force && Date.now() - entry.lastSent < progressIntervalMs) return;
      entry.lastSent = Date.now();
      const payload: BackupProgressPayload = { backupId: id, instanceId: instance.id, ...progress };
      void this.publish('BackupProgress', payload, instance.id);
    };
    try {
      fs.mkdirSync(staging, { mode: 0o700 });
      // The instance's own tools (etcdctl) write into it; pg's dumps are written by the server.
      giveToEngineUser(existingInstanceUser(rt), staging);
      let contents: BackupContents;
      let format: string | null = null;
      let parts: { dir: string; paths: string[] }[];
      // Database work maps to 0–90 %, packing into the archive to 90–100 %.
      if (kind === 'database') {
        const taken = await engine.backupDatabase(rt, staging, (p) =>
          report({ bytes: p.bytes, percent: p.percent === null ? null : Math.round(p.percent * 0.9 * 10) / 10, step: p.step }),
        );
        contents = taken.contents;
        format = taken.format;
        parts = [{ dir: staging, paths: fs.readdirSync(staging) }];
      } else {
        const paths = engine.fileBackupPaths(rt, withData);
        contents = { dataDirectory: withData };
        const manifest = { kind: 'file', engine: instance.type, instance: instance.name, takenAt: this.now().toISOString(), paths, dataDirectory: withData };
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
      const stored = await this.deps.storage.put(key, pack({ parts }), (bytes) =>
        report({
          bytes: Math.max(bytes, kind === 'database' ? entry.progress.bytes : 0),
          percent: Math.min(99.9, Math.round((packedFrom + ((100 - packedFrom) * bytes) / total) * 10) / 10),
          step,
        }),
      );
      const finishedAt = this.now().toISOString();
      await this.change(id, {
        status: 'succeeded',
        finished_at: finishedAt,
        size_bytes: stored.sizeBytes,
        sha256: stored.sha256,
        storage_key: stored.key,
        contents: JSON.stringify(contents),
        ...(format ? { format } : {}),
      });
      entry.progress = { bytes: stored.sizeBytes, percent: 100, step: 'done' };
      if (await findInstanceRow(this.db, instance.id)) {
        await updateInstanceRow(this.db, instance.id, { last_backup_at: finishedAt });
        await this.deps.instances.publishInstance('InstanceUpdated', instance.id);
      }
      await this.deps.logs.write({
        level: 'information',
        instanceId: instance.id,
        handler: 'backup',
        message: `Backup ${id} succeeded: ${formatBytes(stored.sizeBytes)} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s, sha256 ${stored.sha256}.`,
        properties: { backupId: id, sha256: stored.sha256, sizeBytes: stored.sizeBytes },
      });
    } catch (error) {
      const reason = await this.failureReason(instance.id, kind, rt, error);
      await this.change(id, { status: 'failed', finished_at: this.now().toISOString(), error: reason });
      await this.deps.logs.write({
        level: 'error',
        instanceId: instance.id,
        handler: 'backup',
        message: `Backup ${id} failed: ${reason}`,
        properties: { backupId: id },
      });
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
    if (this.running.get(instance.id) === entry) this.running.delete(instance.id);
    const backup = (await this.find(id))!;
    await this.publish('BackupCompleted', { backup } satisfies BackupCompletedPayload, instance.id);
    if (backup.status === 'succeeded' && kind === 'database') await this.prune(instance.id).catch(() => undefined);
    return backup;
  }

  /**
   * Why a backup failed, in the operator's terms first: a database backup cut off by a stop or a
   * restart of its instance (or by the engine dying) says so, then gives the engine's own words.
   */
  private async failureReason(instanceId: string, kind: BackupKind, rt: InstanceRuntime, error: unknown): Promise<string> {
    const words = message(error);
    if (kind !== 'database') return words;
    const row = await findInstanceRow(this.db, instanceId).catch(() => undefined);
    const engine = row ? this.deps.instances.engine(row.type) : null;
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
  private async checkBackupQuota(instance: InstanceRow, kind: BackupKind) {
    if (!instance.group_id) return;
    const group = await findGroup(this.db, instance.group_id);
    const max = group?.quota.maxBackupBytes ?? null;
    if (!group || max === null) return;
    const kept = (await groupUsage(this.db, group.id)).backupBytes;
    const last = (await backupsOfInstance(this.db, instance.id, kind)).find((b) => b.status === 'succeeded' && b.size_bytes !== null);
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
  async beforeUpdate(instanceId: string): Promise<string> {
    const instance = await this.requireInstance(instanceId);
    const online = this.deps.instances.engine(instance.type).pid(this.deps.instances.runtime(instance)) !== null;
    const { done } = await this.take(instanceId, online ? 'database' : 'file', 'pre-update', null);
    const backup = await done;
    if (backup.status !== 'succeeded') throw new Error(`The pre-update backup failed, so the instance was not updated: ${backup.error}`);
    return `pre-update ${backup.kind} backup ${backup.id}`;
  }

  // ---- Deleting ----

  async delete(instanceId: string, kind: BackupKind, backupId: string, force: boolean): Promise<{ id: string }> {
    const row = await findBackupRow(this.db, backupId);
    if (!row || row.instance_id !== instanceId || row.kind !== kind) throw new HttpProblem(404, `The instance has no ${kind} backup ${backupId}.`);
    if (row.status === 'running' || row.status === 'pending') throw new HttpProblem(409, 'The backup is still being taken: wait for it to finish.');
    if (this.verifying.get(instanceId) === backupId) throw new HttpProblem(409, 'The backup is being verified: wait for it to finish.');
    if (row.status === 'succeeded' && !force) {
      const good = (await backupsOfInstance(this.db, instanceId, kind)).filter((b) => b.status === 'succeeded');
      if (good.length === 1) {
        throw new HttpProblem(
          409,
          `This is the last good ${kind} backup of ${row.instance_name}: without it there is nothing to restore from. Delete with force to delete it anyway.`,
          { title: 'Last good backup' },
        );
      }
    }
    await this.remove(row, 'deleted');
    return { id: backupId };
  }

  private async remove(row: BackupRow, why: string) {
    if (row.storage_key) await this.deps.storage.delete(row.storage_key);
    await deleteBackupRow(this.db, row.id);
    await this.publish('BackupDeleted', { id: row.id, instanceId: row.instance_id } satisfies BackupDeletedPayload, row.instance_id);
    const instanceExists = (await findInstanceRow(this.db, row.instance_id)) !== undefined;
    await this.deps.logs.write({
      level: 'information',
      instanceId: instanceExists ? row.instance_id : null,
      handler: 'backup',
      message: `Backup ${row.id} of ${row.instance_name} (${row.kind}, ${formatBytes(row.size_bytes)}) ${why}.`,
    });
  }

  // ---- Retention ----

  private async policyOf(instanceId: string): Promise<RetentionPolicy> {
    const schedule = await findSchedule(this.db, instanceId);
    return { keepLast: schedule?.keep_last ?? null, keepDays: schedule?.keep_days ?? null };
  }

  /** The instance's database backups and those of them a policy deletes now. */
  private async planFor(instanceId: string, policy: RetentionPolicy): Promise<{ rows: BackupRow[]; doomed: BackupRow[] }> {
    const rows = await backupsOfInstance(this.db, instanceId, 'database');
    const candidates = rows.map((r) => ({ id: r.id, status: r.status, startedAt: r.started_at, finishedAt: r.finished_at }));
    const doomed = new Set(planRetention(candidates, policy, this.now()));
    return { rows, doomed: rows.filter((r) => doomed.has(r.id)) };
  }

  async retentionPreview(instanceId: string, policy: RetentionPolicy): Promise<RetentionPreview> {
    const { rows, doomed } = await this.planFor(instanceId, policy);
    return {
      wouldDelete: doomed.map((r) => toBackup(r)),
      keptCount: rows.filter((r) => r.status === 'succeeded').length - doomed.length,
      freedBytes: doomed.reduce((sum, r) => sum + (r.size_bytes ?? 0), 0),
    };
  }

  /** Applies the instance's retention; runs only after a new database backup succeeded. */
  async prune(instanceId: string): Promise<string[]> {
    const { doomed } = await this.planFor(instanceId, await this.policyOf(instanceId));
    for (const row of doomed) {
      if (this.verifying.get(instanceId) === row.id) continue;
      await this.remove(row, 'pruned by retention');
    }
    return doomed.map((r) => r.id);
  }

  // ---- Schedules ----

  async schedule(instanceId: string): Promise<BackupSchedule> {
    const row = await findSchedule(this.db, instanceId);
    const value = row
      ? { enabled: row.enabled === 1, cron: row.cron, timeZone: row.time_zone, keepLast: row.keep_last, keepDays: row.keep_days }
      : defaultSchedule;
    return {
      instanceId,
      ...value,
      lastRunAt: row?.last_run_at ?? null,
      nextRuns: value.enabled ? nextRuns(value.cron, value.timeZone, this.now(), 5).map((d) => d.toISOString()) : [],
    };
  }

  async saveSchedule(instanceId: string, input: UpdateScheduleRequest, author: string | null): Promise<BackupSchedule> {
    await this.requireInstance(instanceId);
    const cron = input.cron.trim().replace(/\s+/g, ' ');
    const errors = scheduleProblems(cron, input.timeZone);
    if (Object.keys(errors).length > 0) throw validationProblem(errors);
    const before = await findSchedule(this.db, instanceId);
    const now = this.now().toISOString();
    // A new or changed schedule counts from now: only slots missed while it was in force run late.
    const unchanged = before && before.cron === cron && before.time_zone === input.timeZone && before.enabled === 1 && input.enabled;
    await saveSchedule(this.db, {
      instance_id: instanceId,
      enabled: input.enabled ? 1 : 0,
      cron,
      time_zone: input.timeZone,
      keep_last: input.keepLast,
      keep_days: input.keepDays,
      last_run_at: unchanged ? before.last_run_at : now,
      updated_at: now,
    });
    await this.deps.logs.write({
      level: 'information',
      instanceId,
      handler: 'scheduler',
      message: `Backup schedule ${input.enabled ? `"${cron}" (${input.timeZone})` : 'disabled'}; retention ${describePolicy(input)}${author ? `, by ${author}` : ''}.`,
    });
    return this.schedule(instanceId);
  }

  /** Runs each due schedule once (a server that was down over several slots runs once at start). */
  tick(): Promise<void> {
    this.ticking ??= (async () => {
      for (const schedule of await enabledSchedules(this.db)) {
        if (this.closed) return;
        const since = new Date(schedule.last_run_at ?? schedule.updated_at);
        let slot: Date | null;
        try {
          slot = dueSlot(schedule.cron, schedule.time_zone, since, this.now());
        } catch {
          continue;
        }
        if (!slot) continue;
        await markScheduleRun(this.db, schedule.instance_id, slot.toISOString());
        try {
          await this.take(schedule.instance_id, 'database', 'schedule', null);
        } catch (error) {
          await this.deps.logs.write({
            level: 'warning',
            instanceId: schedule.instance_id,
            handler: 'scheduler',
            message: `Scheduled backup of ${slot.toISOString()} skipped: ${message(error)}`,
          });
        }
      }
    })().finally(() => {
      this.ticking = null;
    });
    return this.ticking;
  }

  // ---- Downloads ----

  async downloadUrl(instanceId: string, backupId: string): Promise<DownloadUrl> {
    const row = await this.requireBackup(instanceId, backupId);
    if (row.status !== 'succeeded') throw new HttpProblem(409, `The backup is ${row.status}: only a succeeded backup can be downloaded.`);
    const expiresAt = new Date(this.now().getTime() + downloadUrlLifetimeMs);
    const { expires, signature } = this.signer.sign(backupId, expiresAt);
    const base = this.deps.config.publicUrl;
    return { url: `${base}/downloads/backups/${backupId}?expires=${expires}&signature=${signature}`, expiresAt: expiresAt.toISOString() };
  }

  /** Checks a signed link and plans the answer; a full download is verified while it streams. */
  async openDownload(backupId: string, expires: number, signature: string, rangeHeader: string | undefined): Promise<DownloadPlan> {
    const verdict = this.signer.check(backupId, expires, signature, this.now());
    if (verdict === 'invalid') throw new HttpProblem(403, 'This download link is not valid: ask the console for a new one.');
    if (verdict === 'expired') throw new HttpProblem(410, 'This download link has expired (links last 5 minutes): ask the console for a new one.');
    const row = await findBackupRow(this.db, backupId);
    if (!row || !row.storage_key || !row.sha256) throw new HttpProblem(404, 'The backup no longer exists.');
    if (row.status !== 'succeeded') throw new HttpProblem(409, `The backup is ${row.status}: it cannot be downloaded.`);
    const size = await this.deps.storage.size(row.storage_key).catch(() => {
      throw new HttpProblem(409, 'The backup file is missing from storage.');
    });
    const stamp = row.started_at.replace(/[:]/g, '').replace(/\.\d+Z$/, 'Z');
    const headers: Record<string, string> = {
      'content-type': 'application/x-tar',
      'content-disposition': `attachment; filename="${row.instance_name}-${row.kind}-${stamp}.tar"`,
      'accept-ranges': 'bytes',
      'cache-control': 'no-store',
      'x-checksum-sha256': row.sha256,
      'repr-digest': `sha-256=:${Buffer.from(row.sha256, 'hex').toString('base64')}:`,
    };
    const range = parseRange(rangeHeader, size);
    if (range === 'unsatisfiable') {
      throw new HttpProblem(416, `The range is outside the file (${size} bytes).`, { headers: { 'content-range': `bytes */${size}` } });
    }
    // A part cannot be checked on its own, and a file of one read chunk would be refused before any
    // header is sent: both are checked whole before anything is served.
    if (range || size <= readChunkBytes) {
      const actual = await digestOf(this.deps.storage.read(row.storage_key));
      if (actual !== row.sha256) {
        await this.markCorrupt(row, actual, 'a download');
        throw new HttpProblem(409, 'The backup file no longer matches its checksum: it is marked corrupt.');
      }
    }
    if (range) {
      return {
        status: 206,
        headers: { ...headers, 'content-range': `bytes ${range.start}-${range.end}/${size}`, 'content-length': String(range.end - range.start + 1) },
        body: this.deps.storage.read(row.storage_key, range),
      };
    }
    const verified = new VerifyingStream(row.sha256, (actual) => void this.markCorrupt(row, actual, 'a download'));
    const source = this.deps.storage.read(row.storage_key);
    source.on('error', (error) => verified.destroy(error));
    return { status: 200, headers: { ...headers, 'content-length': String(size) }, body: source.pipe(verified) };
  }

  private async markCorrupt(row: BackupRow, actual: string, during: string) {
    const detail = `Checksum mismatch found during ${during}: the stored file hashes to ${actual}, the backup recorded ${row.sha256}.`;
    await this.change(row.id, {
      status: 'corrupt',
      verification: JSON.stringify({ at: this.now().toISOString(), ok: false, detail }),
    });
    await this.deps.logs.write({ level: 'error', instanceId: row.instance_id, handler: 'backup', message: `Backup ${row.id} is corrupt. ${detail}` });
    const backup = await this.find(row.id);
    if (backup) await this.publish('BackupUpdated', { backup } satisfies BackupUpdatedPayload, row.instance_id);
  }

  // ---- Verification and restore ----

  /**
   * Restores the backup into a scratch instance, starts it and compares what it holds with what the
   * backup recorded; the result is kept on the backup. A file backup is checked against its checksum
   * and unpacked. Answers at once; the outcome goes out as BackupUpdated.
   */
  async verify(instanceId: string, backupId: string): Promise<{ backup: Backup; done: Promise<Backup> }> {
    const row = await this.requireBackup(instanceId, backupId);
    if (row.status !== 'succeeded' && row.status !== 'corrupt') {
      throw new HttpProblem(409, `The backup is ${row.status}: only a finished backup can be verified.`);
    }
    if (this.verifying.has(instanceId)) throw new HttpProblem(409, 'A backup of this instance is being verified: wait for it to finish.');
    this.verifying.set(instanceId, backupId);
    const backup = this.view(toBackup(row));
    await this.publish('BackupUpdated', { backup } satisfies BackupUpdatedPayload, instanceId);
    const done = this.track(
      this.runVerification(row).finally(() => {
        if (this.verifying.get(instanceId) === backupId) this.verifying.delete(instanceId);
      }),
    );
    return { backup, done };
  }

  private async runVerification(row: BackupRow): Promise<Backup> {
    const started = Date.now();
    let ok = false;
    let detail: string;
    let corrupt = false;
    const staging = path.join(this.deps.instances.instancesDir, `.backup-verify-${row.id}`);
    let dispose: (() => Promise<void>) | null = null;
    try {
      fs.mkdirSync(staging, { mode: 0o700 });
      const actual = await unpack(this.deps.storage.read(row.storage_key!), staging);
      if (actual !== row.sha256) {
        corrupt = true;
        detail = `Checksum mismatch: the stored file hashes to ${actual}, the backup recorded ${row.sha256}.`;
      } else if (row.kind === 'file') {
        ok = true;
        detail = 'The checksum matches and the archive unpacks.';
      } else {
        const recorded = JSON.parse(row.contents ?? '{}') as BackupContents;
        const scratch = await this.deps.instances.scratch(row.engine, row.id);
        dispose = scratch.dispose;
        // The scratch instance's own user restores from it.
        giveTreeToEngineUser(instanceUser(scratch.rt), staging);
        const engine = this.deps.instances.engine(row.engine);
        await engine.restoreDatabase(staging, scratch.rt, {});
        const found = await engine.inspect(scratch.rt, recorded);
        const differences = compareContents(recorded, found);
        ok = differences.length === 0;
        detail = ok
          ? `Restored into a scratch instance and matched: ${describeContents(recorded)} (${((Date.now() - started) / 1000).toFixed(1)} s).`
          : `Restored, but the data differs: ${differences.slice(0, 10).join('; ')}${differences.length > 10 ? ` and ${differences.length - 10} more` : ''}.`;
      }
    } catch (error) {
      detail = `Verification failed: ${message(error)}`;
    } finally {
      await dispose?.().catch(() => undefined);
      fs.rmSync(staging, { recursive: true, force: true });
    }
    const verification = { at: this.now().toISOString(), ok, detail };
    await this.change(row.id, { verification: JSON.stringify(verification), ...(corrupt ? { status: 'corrupt' as const } : {}) });
    await this.deps.logs.write({
      level: ok ? 'information' : 'error',
      instanceId: row.instance_id,
      handler: 'backup',
      message: `Backup ${row.id} ${ok ? 'verified' : 'failed verification'}: ${detail}`,
    });
    // Over before it is told, so the backup that goes out no longer says it is being verified.
    this.verifying.delete(row.instance_id);
    const backup = (await this.find(row.id))!;
    await this.publish('BackupUpdated', { backup } satisfies BackupUpdatedPayload, row.instance_id);
    return backup;
  }

  async checkCloneSource(instanceId: string, backupId: string): Promise<void> {
    const row = await this.requireBackup(instanceId, backupId);
    if (row.kind !== 'database') throw new HttpProblem(409, 'Only a database backup can seed a new instance.');
    if (row.status !== 'succeeded') throw new HttpProblem(409, `The backup is ${row.status}: only a succeeded backup can be restored.`);
  }

  /** Unpacks the backup (refusing it if its bytes changed) and lets the engine make `target` from it. */
  async restoreInto(backupId: string, target: InstanceRuntime, parameters: Record<string, string>): Promise<void> {
    const row = await findBackupRow(this.db, backupId);
    if (!row || row.status !== 'succeeded' || !row.storage_key) throw new Error('The backup is gone or not usable any more.');
    const staging = path.join(this.deps.instances.instancesDir, `.backup-restore-${randomUUID()}`);
    const work = (async () => {
      try {
        fs.mkdirSync(staging, { mode: 0o700 });
        const actual = await unpack(this.deps.storage.read(row.storage_key!), staging);
        if (actual !== row.sha256) {
          await this.markCorrupt(row, actual, 'a restore');
          throw new Error('The backup file no longer matches its checksum (marked corrupt): nothing was restored.');
        }
        giveTreeToEngineUser(instanceUser(target), staging);
        await this.deps.instances.engine(row.engine).restoreDatabase(staging, target, parameters);
      } finally {
        fs.rmSync(staging, { recursive: true, force: true });
      }
    })();
    await this.track(work);
  }

  // ---- Internals ----

  private async requireInstance(id: string): Promise<InstanceRow> {
    const row = await findInstanceRow(this.db, id);
    if (!row) throw new HttpProblem(404, `No instance has the id ${id}.`);
    return row;
  }

  private async requireBackup(instanceId: string, backupId: string): Promise<BackupRow> {
    const row = await findBackupRow(this.db, backupId);
    if (!row || row.instance_id !== instanceId) throw new HttpProblem(404, `The instance has no backup ${backupId}.`);
    return row;
  }

  private change(id: string, change: BackupChange) {
    return updateBackup(this.db, id, change);
  }

  /** Listeners of this instance's backups and of all backups who may see it now (admins only once it is deleted). */
  private async publish(event: string, payload: unknown, instanceId: string) {
    const userIds = await memberIdsOfGroup(this.db, (await findInstanceRow(this.db, instanceId))?.group_id ?? null);
    const audience: Audience = { kind: 'scoped', groups: [hubGroupNames.backups(instanceId), hubGroupNames.backups(null)], userIds };
    this.deps.bus.publish({ event, payload, audience });
  }
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

function describePolicy(policy: RetentionPolicy): string {
  const parts: string[] = [];
  if (policy.keepLast !== null) parts.push(`keep the last ${policy.keepLast}`);
  if (policy.keepDays !== null) parts.push(`keep ${policy.keepDays} day(s)`);
  return parts.length > 0 ? parts.join(' and ') : 'none (keep everything)';
}
