import type { BackupSchedule, UpdateScheduleRequest } from '../../contracts/backups';
import { fullBackupEveryDays, physicalFormatPrefix } from '../../contracts/backupValues';
import { backupsOfInstance, enabledSchedules, findSchedule, claimScheduleRun, saveSchedule } from '../db/backups';
import { findInstanceRow } from '../db/instances';
import { validationProblem } from '../http/problems';
import { message, type BackupContext } from './backupContext';
import { describePolicy } from './backupRetention';
import { dueSlot, nextRuns, scheduleProblems } from './cronSchedule';
import { takeBackup } from './takeBackup';

const defaultSchedule = { enabled: false, cron: '0 3 * * *', timeZone: 'UTC', keepLast: null, keepDays: null, includeManual: false, method: 'dump' } as const;
const scheduleTickMs = 30_000;

/** Backup schedules: each instance's cron and retention policy, and the timer that takes due backups. */
export class BackupScheduler {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly ctx: BackupContext) {}

  /** Runs what is due now (schedules missed while the server was down run once), then checks every 30 s. */
  async start(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => void this.tick(), scheduleTickMs);
    this.timer.unref();
  }

  /** Takes no more scheduled backups; answers the round that is still running, if any. */
  stop(): Promise<void> | null {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    return this.ticking;
  }

  async schedule(instanceId: string): Promise<BackupSchedule> {
    const row = await findSchedule(this.ctx.db, instanceId);
    const value = row
      ? {
          enabled: row.enabled === 1,
          cron: row.cron,
          timeZone: row.time_zone,
          keepLast: row.keep_last,
          keepDays: row.keep_days,
          includeManual: row.include_manual === 1,
          method: row.method,
        }
      : defaultSchedule;
    return {
      instanceId,
      ...value,
      lastRunAt: row?.last_run_at ?? null,
      nextRuns: value.enabled ? nextRuns(value.cron, value.timeZone, this.ctx.now(), 5).map((d) => d.toISOString()) : [],
    };
  }

  async save(instanceId: string, input: UpdateScheduleRequest, author: string | null): Promise<BackupSchedule> {
    await this.ctx.requireInstance(instanceId);
    const cron = input.cron.trim().replace(/\s+/g, ' ');
    const errors = scheduleProblems(cron, input.timeZone);
    if (Object.keys(errors).length > 0) throw validationProblem(errors);
    const before = await findSchedule(this.ctx.db, instanceId);
    const now = this.ctx.now().toISOString();
    // A new or changed schedule counts from now: only slots missed while it was in force run late.
    const unchanged = before && before.cron === cron && before.time_zone === input.timeZone && before.enabled === 1 && input.enabled;
    await saveSchedule(this.ctx.db, {
      instance_id: instanceId,
      enabled: input.enabled ? 1 : 0,
      cron,
      time_zone: input.timeZone,
      keep_last: input.keepLast,
      keep_days: input.keepDays,
      include_manual: input.includeManual ? 1 : 0,
      method: input.method ?? before?.method ?? 'dump',
      // No run yet for a new or changed schedule (the screen shows none); slots count from when it took effect.
      last_run_at: unchanged ? before.last_run_at : null,
      updated_at: unchanged ? before.updated_at : now,
    });
    await this.ctx.deps.logs.write({
      level: 'information',
      instanceId,
      handler: 'scheduler',
      message: `Backup schedule ${input.enabled ? `"${cron}" (${input.timeZone})` : 'disabled'}; retention ${describePolicy(input)}${author ? `, by ${author}` : ''}.`,
    });
    return this.schedule(instanceId);
  }

  /** A full backup when the newest succeeded one is a week old or more (or there is none), else a differential one. */
  private async physicalKind(instanceId: string): Promise<'full' | 'diff'> {
    const fulls = (await backupsOfInstance(this.ctx.db, instanceId, 'database')).filter((b) => b.status === 'succeeded' && b.format === `${physicalFormatPrefix}full`);
    const newest = fulls.map((b) => b.finished_at ?? b.started_at).sort().at(-1);
    const due = new Date(this.ctx.now().getTime() - fullBackupEveryDays * 86_400_000).toISOString();
    return newest === undefined || newest <= due ? 'full' : 'diff';
  }

  /** Runs each due schedule once (a server that was down over several slots runs once at start). */
  tick(): Promise<void> {
    this.ticking ??= (async () => {
      for (const schedule of await enabledSchedules(this.ctx.db)) {
        if (this.closed) return;
        const since = new Date(schedule.last_run_at ?? schedule.updated_at);
        let slot: Date | null;
        try {
          slot = dueSlot(schedule.cron, schedule.time_zone, since, this.ctx.now());
        } catch {
          continue;
        }
        if (!slot) continue;
        // The instance's own host takes its backups: its agent reaches the files.
        const instance = await findInstanceRow(this.ctx.db, schedule.instance_id);
        if (!instance || !this.ctx.deps.instances.isLocal(instance)) continue;
        // Another server sharing the store may have taken this slot since the schedules were read.
        if (!(await claimScheduleRun(this.ctx.db, schedule.instance_id, schedule.last_run_at, slot.toISOString()))) continue;
        try {
          await takeBackup(this.ctx, schedule.instance_id, 'database', 'schedule', null, schedule.method === 'physical' ? await this.physicalKind(schedule.instance_id) : 'dump');
        } catch (error) {
          await this.ctx.deps.logs.write({
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
}
