import type {
  AllBackupsPage,
  AllBackupsQuery,
  Backup,
  BackupKind,
  BackupSchedule,
  BackupsQuery,
  BackupsSummary,
  BackupTrigger,
  DownloadUrl,
  RestoreSkip,
  RetentionPreview,
  UpdateScheduleRequest,
} from '../../contracts/backups';
import type { DatabaseBackupMethod } from '../../contracts/backupValues';
import type { PageOf } from '../../contracts/page';
import { backupsOfInstance, listBackups, summarize, toBackup, type BackupSort } from '../db/backups';
import { pageWindow } from '../db/paging';
import type { InstanceRuntime } from '../engines/engine';
import type { InstanceBackups } from '../instances/instanceContext';
import { BackupContext, type BackupServiceDeps } from './backupContext';
import { BackupDownloads, type DownloadPlan } from './backupDownloads';
import { recoverBackups } from './backupRecovery';
import { deleteBackup, forgetExpiredPhysical, pinBackup, pruneBackups, retentionPreview } from './backupRetention';
import { BackupScheduler } from './backupSchedules';
import { checkCloneSource, restoreInto, type RestoreLog } from './restoreBackup';
import type { RetentionPolicy } from './retention';
import { backupBeforeUpdate, takeBackup } from './takeBackup';
import { verifyBackup } from './verifyBackup';

/**
 * Backups (DESIGN §5, issue "Backups"): takes database and file backups into storage so that a
 * backup listed as succeeded is whole and durable, verifies them in scratch instances, serves signed
 * downloads checked while they stream, restores them into new instances, runs schedules and prunes
 * by retention. One backup per instance at a time; every change goes out through the event bus.
 * Each job lives in its own module; this class reads backups and hands every other call to its job.
 */
export class BackupService implements InstanceBackups {
  private readonly ctx: BackupContext;
  private readonly scheduler: BackupScheduler;
  private readonly downloads: BackupDownloads;

  constructor(deps: BackupServiceDeps) {
    this.ctx = new BackupContext(deps);
    this.scheduler = new BackupScheduler(this.ctx);
    this.downloads = new BackupDownloads(this.ctx);
  }

  // ---- Start and stop ----

  /**
   * After a server start: backups cut off by the stop are failed (never listed as good), partial
   * files and unpacking folders are removed; then schedules missed while the server was down run once.
   */
  async start(): Promise<void> {
    await this.recover();
    await this.scheduler.start();
  }

  recover(): Promise<void> {
    return recoverBackups(this.ctx);
  }

  async close(): Promise<void> {
    const ticking = this.scheduler.stop();
    await Promise.race([Promise.allSettled([...this.ctx.work, ticking]), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
  }

  /** Resolves when no backup, verification or restore runs: tests and benchmarks wait on it. */
  async idle(): Promise<void> {
    while (this.ctx.work.size > 0) await Promise.allSettled([...this.ctx.work]);
  }

  // ---- Reading ----

  find(id: string): Promise<Backup | undefined> {
    return this.ctx.find(id);
  }

  async summary(instanceId: string): Promise<BackupsSummary> {
    const rows = await backupsOfInstance(this.ctx.db, instanceId);
    const runningOf = (kind: BackupKind) => {
      const current = this.ctx.running.get(instanceId);
      const row = current && rows.find((r) => r.id === current.backupId && r.kind === kind);
      return row ? this.ctx.view(toBackup(row)) : null;
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
    const page = await listBackups(this.ctx.db, {
      ...query,
      ...pageWindow(query),
      sort: query.sort as BackupSort | undefined,
      visibleGroupIds,
    });
    return { ...page, items: page.items.map((b) => this.ctx.view(b)) };
  }

  busy(instanceId: string): boolean {
    return this.ctx.running.has(instanceId) || this.ctx.verifying.has(instanceId);
  }

  async keptFor(instanceId: string): Promise<{ count: number; bytes: number }> {
    const rows = await backupsOfInstance(this.ctx.db, instanceId);
    return { count: rows.length, bytes: rows.reduce((sum, r) => sum + (r.size_bytes ?? 0), 0) };
  }

  // ---- Jobs (takeBackup.ts, verifyBackup.ts, restoreBackup.ts, backupRetention.ts, backupSchedules.ts, backupDownloads.ts) ----

  take(instanceId: string, kind: BackupKind, trigger: BackupTrigger, author: string | null, method?: DatabaseBackupMethod): Promise<{ backup: Backup; done: Promise<Backup> }> {
    return takeBackup(this.ctx, instanceId, kind, trigger, author, method);
  }

  beforeUpdate(instanceId: string): Promise<string> {
    return backupBeforeUpdate(this.ctx, instanceId);
  }

  verify(instanceId: string, backupId: string): Promise<{ backup: Backup; done: Promise<Backup> }> {
    return verifyBackup(this.ctx, instanceId, backupId);
  }

  fetchFromHost(backupId: string, hostApiUrl: string, headers: Record<string, string>): Promise<() => Promise<void>> {
    return this.downloads.fetchFromHost(backupId, hostApiUrl, headers);
  }

  checkCloneSource(instanceId: string, backupId: string): Promise<void> {
    return checkCloneSource(this.ctx, instanceId, backupId);
  }

  restoreInto(backupId: string, target: InstanceRuntime, parameters: Record<string, string>, log: RestoreLog): Promise<RestoreSkip[]> {
    return restoreInto(this.ctx, backupId, target, parameters, log);
  }

  delete(instanceId: string, kind: BackupKind, backupId: string, force: boolean): Promise<{ id: string }> {
    return deleteBackup(this.ctx, instanceId, kind, backupId, force);
  }

  pin(instanceId: string, backupId: string, pinned: boolean): Promise<Backup> {
    return pinBackup(this.ctx, instanceId, backupId, pinned);
  }

  retentionPreview(instanceId: string, policy: RetentionPolicy): Promise<RetentionPreview> {
    return retentionPreview(this.ctx, instanceId, policy);
  }

  prune(instanceId: string): Promise<string[]> {
    return pruneBackups(this.ctx, instanceId);
  }

  forgetExpiredPhysical(instanceId: string, kept: ReadonlySet<string>): Promise<string[]> {
    return forgetExpiredPhysical(this.ctx, instanceId, kept);
  }

  schedule(instanceId: string): Promise<BackupSchedule> {
    return this.scheduler.schedule(instanceId);
  }

  saveSchedule(instanceId: string, input: UpdateScheduleRequest, author: string | null): Promise<BackupSchedule> {
    return this.scheduler.save(instanceId, input, author);
  }

  tick(): Promise<void> {
    return this.scheduler.tick();
  }

  downloadUrl(instanceId: string, backupId: string): Promise<DownloadUrl> {
    return this.downloads.downloadUrl(instanceId, backupId);
  }

  openDownload(backupId: string, expires: number, signature: string, rangeHeader: string | undefined): Promise<DownloadPlan> {
    return this.downloads.openDownload(backupId, expires, signature, rangeHeader);
  }
}
