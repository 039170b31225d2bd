import fs from 'node:fs';
import path from 'node:path';
import type { Instance } from '../../contracts/instances';
import type {
  PitrSettings,
  RecoveryWindow,
  RecoveryWindowChangedPayload,
  RestorePlan,
  RestorePoint,
  RestoreToPointRequest,
} from '../../contracts/pitr';
import type { Clock } from '../clock';
import {
  findRestorePoint,
  insertPointRestore,
  insertRestorePoint,
  lastDrillPace,
  lastPointRestoreFrom,
  lastRecoveryCheck,
  pointRestoreOf,
  restorePointsOf,
} from '../db/pitr';
import { findInstanceRow, runningInstanceRows, type InstanceRow } from '../db/instances';
import { memberIdsOfGroup } from '../db/groups';
import type { Db } from '../db/schema';
import type { InstanceRuntime } from '../engines/engine';
import { writeInstanceFile } from '../engines/instanceFiles';
import type { ArchiverState, PgEngine } from '../engines/pg';
import type { ArchivedFile, PgArchive } from '../engines/pgArchive';
import type { EventBus } from '../hub/bus';
import { hubGroupNames } from '../hub/methods';
import { HttpProblem } from '../http/problems';
import type { InstanceService } from '../instances/instanceService';
import type { LogService } from '../logs/logService';
import { RecoveryChecks } from './recoveryChecks';
import { physicalBackups, planRestore, recoveryWindow, type WalMark } from './recoveryWindow';
import type { BackupService } from '../backups/backupService';

export interface PitrServiceDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  logs: LogService;
  instances: InstanceService;
  /** Physical backups are listed among the instance's backups, and leave the list when pgBackRest expires them. */
  backups: Pick<BackupService, 'forgetExpiredPhysical' | 'busy'>;
  /** Why archiving is off on this server, when it is. */
  disabledReason: string | null;
  /** How often running instances' archivers are read. */
  intervalMs: number;
}

/** Marks kept per instance: enough for a day at one a minute once the idle ones are thinned. */
const maxMarks = 2000;

/**
 * Point-in-time recovery of pg instances (DESIGN §12): reads each running instance's archiver on a
 * timer, keeping where the server wrote when (the marks that say how late a restore can reach) and
 * announcing RecoveryWindowChanged when WAL is archived or archiving fails; answers the window, plans
 * and starts restores to a point, and makes named restore points.
 */
export class PitrService {
  private readonly marks = new Map<string, WalMark[]>();
  /** What the last tick saw of each instance's archiver, to announce changes only. */
  private readonly seen = new Map<string, string>();
  /** Whether archiving failed at the last tick, by instance: a change is logged. */
  private readonly failing = new Map<string, boolean>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;

  private readonly checks: RecoveryChecks;

  constructor(private readonly deps: PitrServiceDeps) {
    this.checks = new RecoveryChecks({
      db: deps.db,
      clock: deps.clock,
      logs: deps.logs,
      instances: deps.instances,
      window: (id) => this.window(id),
      plan: (id, request) => this.plan(id, request),
      announce: (row) => this.announce(row),
    });
  }

  private get engine(): PgEngine {
    return this.deps.instances.engine('pg') as PgEngine;
  }

  get archive(): PgArchive | null {
    return this.engine.archive ?? null;
  }

  start() {
    if (!this.archive || this.timer) return;
    this.timer = setInterval(() => {
      if (!this.ticking) this.ticking = this.tick().finally(() => (this.ticking = null));
    }, this.deps.intervalMs);
    this.timer.unref();
  }

  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    await this.idle();
  }

  /** Reads every running pg instance's archiver: a mark each, and an event when its archive changed. */
  async tick(): Promise<void> {
    const rows = (await runningInstanceRows(this.deps.db, 'pg')).filter((row) => this.deps.instances.isLocal(row));
    for (const row of rows) {
      const state = await this.sample(row).catch(() => null);
      if (!state) continue;
      const failing = archivingFails(state);
      if (failing !== (this.failing.get(row.id) ?? false)) {
        this.failing.set(row.id, failing);
        await this.deps.logs.write({
          level: failing ? 'error' : 'information',
          instanceId: row.id,
          handler: 'pitr',
          message: failing
            ? `Archiving WAL fails${state.lastFailedWal ? ` (segment ${state.lastFailedWal})` : ''}${state.stanzaProblem ? `: ${state.stanzaProblem}` : ''}: the recoverable window stops growing until it works again.`
            : 'Archiving WAL works again: the recoverable window grows.',
        });
      }
      const summary = `${state.lastArchivedWal}|${state.lastFailedAt}|${state.stanzaProblem}`;
      if (this.seen.get(row.id) === summary) continue;
      const first = !this.seen.has(row.id);
      this.seen.set(row.id, summary);
      if (!first) await this.announce(row).catch(() => undefined);
    }
    for (const row of rows) await this.checks.startDue(row).catch(() => undefined);
  }

  /** The archiver of a running instance, with a mark of where it writes now. */
  private async sample(row: InstanceRow): Promise<ArchiverState | null> {
    const rt = this.deps.instances.runtime(row);
    if (this.engine.pid(rt) === null) return null;
    const state = await this.engine.archiverState(rt);
    this.remember(rt, { at: state.at, lsn: state.insertLsn });
    return state;
  }

  private marksOf(rt: InstanceRuntime): WalMark[] {
    let known = this.marks.get(rt.id);
    if (!known) {
      try {
        known = JSON.parse(fs.readFileSync(marksFile(rt), 'utf8')) as WalMark[];
      } catch {
        known = [];
      }
      this.marks.set(rt.id, known);
    }
    return known;
  }

  /**
   * Keeps a mark. An idle server writes nowhere new: of a run of marks at one position only the
   * first and the last are kept, so the list reaches back far with few entries.
   */
  private remember(rt: InstanceRuntime, mark: WalMark) {
    const marks = this.marksOf(rt);
    const last = marks.at(-1);
    const beforeLast = marks.at(-2);
    if (last && beforeLast && last.lsn === mark.lsn && beforeLast.lsn === mark.lsn) marks[marks.length - 1] = mark;
    else marks.push(mark);
    if (marks.length > maxMarks) marks.splice(0, marks.length - maxMarks);
    if (fs.existsSync(rt.dir)) writeInstanceFile(marksFile(rt), JSON.stringify(marks), { within: rt.dir });
  }

  private async announce(row: InstanceRow) {
    const window = await this.window(row.id);
    const payload: RecoveryWindowChangedPayload = { instanceId: row.id, window };
    const userIds = await memberIdsOfGroup(this.deps.db, row.group_id);
    // The instance's page and its backups page, where the window is drawn.
    const groups = [hubGroupNames.instance(row.id), hubGroupNames.backups(row.id)];
    this.deps.bus.publish({ event: 'RecoveryWindowChanged', payload, audience: { kind: 'scoped', groups, userIds } });
  }

  private async pgRow(instanceId: string): Promise<InstanceRow> {
    const row = await findInstanceRow(this.deps.db, instanceId);
    if (!row) throw new HttpProblem(404, `No instance has the id ${instanceId}.`);
    return row;
  }

  // ---- The window ----

  async window(instanceId: string): Promise<RecoveryWindow> {
    const row = await this.pgRow(instanceId);
    const archive = this.archive;
    const rt = this.deps.instances.runtime(row);
    const base = { repository: archive?.repository ?? ('local' as const), settings: archive ? archive.settings(rt) : { archiveTimeoutSeconds: 60, retentionDays: 7 }, restorePoints: [] };
    if (row.type !== 'pg') return recoveryWindow({ ...base, enabled: false, reason: 'Point-in-time recovery is for PostgreSQL instances.', info: null, archived: [], archiver: null, marks: [] });
    if (!archive) return recoveryWindow({ ...base, enabled: false, reason: this.deps.disabledReason, info: null, archived: [], archiver: null, marks: [] });
    if (row.status === 'unInitialized' || !fs.existsSync(path.join(rt.dir, 'pgbackrest.conf'))) {
      return recoveryWindow({ ...base, enabled: true, info: null, archived: [], archiver: null, marks: [], reason: null });
    }
    const archiver = await this.sample(row).catch(() => null);
    const [info, archived, lastDrill, lastVerify, restoredFrom] = await Promise.all([
      archive.info(rt).catch(() => null),
      this.archived(archive, rt),
      lastRecoveryCheck(this.deps.db, instanceId, 'drill'),
      lastRecoveryCheck(this.deps.db, instanceId, 'verify'),
      pointRestoreOf(this.deps.db, instanceId),
    ]);
    // While a backup runs, its set is not listed yet: nothing is taken for expired then.
    if (info && !this.deps.backups.busy(instanceId)) {
      await this.deps.backups.forgetExpiredPhysical(instanceId, new Set(physicalBackups(info).map((b) => b.id))).catch(() => undefined);
    }
    return recoveryWindow({
      ...base,
      enabled: true,
      reason: null,
      info,
      archived,
      archiver,
      marks: this.marksOf(rt),
      restorePoints: await restorePointsOf(this.deps.db, instanceId),
      lastDrill,
      lastVerify,
      checking: this.checks.running(instanceId),
      restoredFrom,
    });
  }

  private archived(archive: PgArchive, rt: InstanceRuntime): Promise<ArchivedFile[]> {
    return archive.archived(rt).catch(() => []);
  }

  // ---- Restores ----

  async plan(instanceId: string, request: RestoreToPointRequest): Promise<RestorePlan> {
    const row = await this.pgRow(instanceId);
    const archive = this.archive;
    if (row.type !== 'pg' || !archive) throw new HttpProblem(409, row.type !== 'pg' ? 'Point-in-time recovery is for PostgreSQL instances.' : (this.deps.disabledReason ?? 'WAL archiving is off on this server.'));
    const rt = this.deps.instances.runtime(row);
    const window = await this.window(instanceId);
    const target = request.target;
    const point = target !== 'latest' && 'name' in target ? await findRestorePoint(this.deps.db, instanceId, target.name) : null;
    return planRestore({
      window,
      archived: await this.archived(archive, rt),
      marks: this.marksOf(rt),
      target,
      backupId: request.backupId,
      point,
      pace: (await lastDrillPace(this.deps.db, instanceId)) ?? (await lastPointRestoreFrom(this.deps.db, instanceId)),
    });
  }

  /** Checks the target against the window, then makes the new instance (202); its restore runs in the background. */
  async restore(instanceId: string, request: RestoreToPointRequest, author: string | null): Promise<{ instance: Instance; plan: RestorePlan }> {
    const plan = await this.plan(instanceId, request);
    const source = await this.pgRow(instanceId);
    const instance = await this.deps.instances.restoreToPoint(
      instanceId,
      {
        name: request.name,
        description: request.description,
        groupId: request.groupId,
        backupId: plan.backup.id,
        target: request.target,
        members: request.members,
        dcsInstanceId: request.dcsInstanceId,
        synchronous: request.synchronous,
        failoverPreset: request.failoverPreset,
      },
      author,
      async (outcome) => {
        await insertPointRestore(this.deps.db, {
          instance_id: outcome.instanceId,
          source_id: instanceId,
          source_name: source.name,
          target: JSON.stringify(request.target),
          backup_id: plan.backup.id,
          last_replayed_at: outcome.lastReplayedAt,
          timeline: outcome.timeline,
          recovery_ms: outcome.recoveryMs,
          wal_bytes: plan.walBytes,
          created_at: this.deps.clock().toISOString(),
        });
      },
    );
    return { instance, plan };
  }

  // ---- Restore drills and verifications (recoveryChecks.ts) ----

  /** Resolves when no drill or verification runs: tests wait on it. */
  idle(): Promise<void> {
    return this.checks.idle();
  }

  /** Starts a restore drill or a verification of the repository (202); its result arrives with the window. */
  async check(instanceId: string, kind: 'drill' | 'verify'): Promise<RecoveryWindow> {
    const row = await this.pgRow(instanceId);
    if (row.type !== 'pg' || !this.archive) throw new HttpProblem(409, 'Restore drills need WAL archiving, which this instance does not have.');
    if (this.checks.running(instanceId)) throw new HttpProblem(409, `A drill or verification of ${row.name} runs now: wait for it to finish.`);
    if (this.deps.instances.busy.has(instanceId)) throw new HttpProblem(409, 'Another operation is running on this instance: wait for it to finish.');
    const window = await this.window(instanceId);
    if (window.backups.length === 0) throw new HttpProblem(409, `${row.name} has no physical backup yet: there is nothing to ${kind === 'drill' ? 'restore' : 'verify'}.`);
    this.checks.begin(row, kind, window);
    return { ...window, checking: true };
  }

  // ---- Restore points and settings ----

  async createRestorePoint(instanceId: string, name: string, author: string | null): Promise<RestorePoint> {
    const row = await this.pgRow(instanceId);
    if (row.type !== 'pg' || !this.archive) throw new HttpProblem(409, 'Restore points need WAL archiving, which this instance does not have.');
    const rt = this.deps.instances.runtime(row);
    if (this.engine.pid(rt) === null) throw new HttpProblem(409, `${row.name} is not running: start it to mark a restore point.`);
    if (await findRestorePoint(this.deps.db, instanceId, name)) {
      throw new HttpProblem(400, undefined, { title: 'One or more validation errors occurred.', errors: { name: [`${row.name} already has a restore point named '${name}'.`] } });
    }
    const made = await this.engine.createRestorePoint(rt, name);
    await insertRestorePoint(this.deps.db, { instance_id: instanceId, name, lsn: made.lsn, at: made.at, created_by: author });
    await this.deps.logs.write({ level: 'information', instanceId, handler: 'pitr', message: `Restore point '${name}' marked at ${made.at} (WAL ${made.lsn}).` });
    await this.announce(row).catch(() => undefined);
    return { name, at: made.at, lsn: made.lsn, createdBy: author };
  }

  async settings(instanceId: string): Promise<PitrSettings> {
    const row = await this.pgRow(instanceId);
    const archive = this.archive;
    if (!archive) throw new HttpProblem(409, this.deps.disabledReason ?? 'WAL archiving is off on this server.');
    return archive.settings(this.deps.instances.runtime(row));
  }

  /** Saves the archive timeout and the window; a running instance takes the timeout at once (a reload). */
  async saveSettings(instanceId: string, chosen: PitrSettings): Promise<PitrSettings> {
    const row = await this.pgRow(instanceId);
    const archive = this.archive;
    if (row.type !== 'pg' || !archive) throw new HttpProblem(409, 'Point-in-time recovery is for PostgreSQL instances on a server that archives WAL.');
    if (row.status === 'unInitialized') throw new HttpProblem(409, `${row.name} is not initialized yet.`);
    const rt = this.deps.instances.runtime(row);
    archive.saveSettings(rt, chosen);
    if (this.engine.pid(rt) !== null) await this.engine.applyArchiveSettings(rt);
    return archive.settings(rt);
  }
}

/** Archiving fails when its last attempt failed after its last success, or its stanza could not be made. */
function archivingFails(state: ArchiverState): boolean {
  if (state.stanzaProblem) return true;
  return state.lastFailedAt !== null && (state.lastArchivedAt === null || state.lastFailedAt > state.lastArchivedAt);
}

const marksFile = (rt: InstanceRuntime) => path.join(rt.dir, 'pitr-marks.json');
