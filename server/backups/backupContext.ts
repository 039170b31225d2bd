import type { Backup, BackupProgressState, BackupUpdatedPayload } from '../../contracts/backups';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { findBackupRow, toBackup, updateBackup, type BackupChange, type BackupRow } from '../db/backups';
import { memberIdsOfGroup } from '../db/groups';
import { findInstanceRow, type InstanceRow } from '../db/instances';
import type { Db } from '../db/schema';
import type { Audience, EventBus } from '../hub/bus';
import { hubGroupNames } from '../hub/methods';
import { HttpProblem } from '../http/problems';
import type { InstanceService } from '../instances/instanceService';
import type { LogService } from '../logs/logService';
import type { BackupStorage } from './storage';

export interface BackupServiceDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  config: Config;
  logs: LogService;
  instances: InstanceService;
  storage: BackupStorage;
}

export interface RunningBackup {
  backupId: string;
  progress: BackupProgressState;
  lastSent: number;
}

/** Where a backup's archive is kept. */
/** Why a physical backup (pgBackRest's, in the instance's WAL archive) is not handled like a dump. */
export const physicalOnly = {
  download: 'A physical backup lives in the instance\'s WAL archive: restore it to a point in time instead of downloading it.',
  verify: 'A physical backup is checked by the restore drill and by pgBackRest\'s verify of the WAL archive, not by this verification.',
  restore: 'A physical backup is restored to a point in time: use "Restore to a point in time" (POST /instances/{id}/restore-point).',
  delete: 'A physical backup leaves with the recovery window: pgBackRest expires it once no restore inside the window needs it.',
};

export const storageKey = (instanceId: string, backupId: string) => `${instanceId}/${backupId}.tar`;

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What the backup jobs (taking, verifying, restoring, retention, schedules, downloads) share: the
 * services they use, which backups are being taken or verified now, the background work still
 * running, and the one way a backup is read, changed and announced.
 */
export class BackupContext {
  /** By instance id: the backup being taken. */
  readonly running = new Map<string, RunningBackup>();
  /** By instance id: the backup being verified. */
  readonly verifying = new Map<string, string>();
  /** Backups, verifications and restores still running. */
  readonly work = new Set<Promise<unknown>>();

  constructor(readonly deps: BackupServiceDeps) {}

  get db() {
    return this.deps.db;
  }

  now() {
    return this.deps.clock();
  }

  track<T>(promise: Promise<T>): Promise<T> {
    this.work.add(promise);
    void promise.catch(() => undefined).finally(() => this.work.delete(promise));
    return promise;
  }

  /** A backup as stored, with its live progress while it is being taken and whether it is being verified. */
  view(backup: Backup): Backup {
    const running = this.running.get(backup.instanceId);
    const verifying = this.verifying.get(backup.instanceId) === backup.id;
    return { ...backup, progress: running?.backupId === backup.id ? running.progress : null, verifying };
  }

  async find(id: string): Promise<Backup | undefined> {
    const row = await findBackupRow(this.db, id);
    return row && this.view(toBackup(row));
  }

  async requireInstance(id: string): Promise<InstanceRow> {
    const row = await findInstanceRow(this.db, id);
    if (!row) throw new HttpProblem(404, `No instance has the id ${id}.`);
    return row;
  }

  async requireBackup(instanceId: string, backupId: string): Promise<BackupRow> {
    const row = await findBackupRow(this.db, backupId);
    if (!row || row.instance_id !== instanceId) throw new HttpProblem(404, `The instance has no backup ${backupId}.`);
    return row;
  }

  change(id: string, change: BackupChange) {
    return updateBackup(this.db, id, change);
  }

  /** Listeners of this instance's backups and of all backups who may see it now (admins only once it is deleted). */
  async publish(event: string, payload: unknown, instanceId: string) {
    const userIds = await memberIdsOfGroup(this.db, (await findInstanceRow(this.db, instanceId))?.group_id ?? null);
    const audience: Audience = { kind: 'scoped', groups: [hubGroupNames.backups(instanceId), hubGroupNames.backups(null)], userIds };
    this.deps.bus.publish({ event, payload, audience });
  }

  /** Marks a backup whose stored bytes no longer match its checksum corrupt, and says so. */
  async markCorrupt(row: BackupRow, actual: string, during: string) {
    const detail = `Checksum mismatch found during ${during}: the stored file hashes to ${actual}, the backup recorded ${row.sha256}.`;
    await this.change(row.id, {
      status: 'corrupt',
      verification: JSON.stringify({ at: this.now().toISOString(), ok: false, detail }),
    });
    await this.deps.logs.write({ level: 'error', instanceId: row.instance_id, handler: 'backup', message: `Backup ${row.id} is corrupt. ${detail}` });
    const backup = await this.find(row.id);
    if (backup) await this.publish('BackupUpdated', { backup } satisfies BackupUpdatedPayload, row.instance_id);
  }
}
