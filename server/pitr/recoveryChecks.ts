import { randomUUID } from 'node:crypto';
import type { RecoveryCheck, RecoveryTarget, RecoveryWindow, RestorePlan, RestoreToPointRequest } from '../../contracts/pitr';
import type { Clock } from '../clock';
import type { InstanceRow } from '../db/instances';
import { insertRecoveryCheck, lastRecoveryCheck } from '../db/pitr';
import type { Db } from '../db/schema';
import type { PgEngine } from '../engines/pg';
import type { InstanceService } from '../instances/instanceService';
import type { LogService } from '../logs/logService';

/** How often each instance's window is proven: a drill a week, a verification a day, the first once its first backup is an hour old. */
const checkEvery = { drillMs: 7 * 86_400_000, verifyMs: 86_400_000, firstAfterMs: 3_600_000 };

export interface RecoveryChecksDeps {
  db: Db;
  clock: Clock;
  logs: LogService;
  instances: InstanceService;
  window(instanceId: string): Promise<RecoveryWindow>;
  plan(instanceId: string, request: RestoreToPointRequest): Promise<RestorePlan>;
  /** Tells the instance's pages its window changed. */
  announce(row: InstanceRow): Promise<void>;
}

/**
 * Proving an instance's window (DESIGN §12): restore drills into throwaway copies and pgBackRest's
 * verify of the repository, on demand or when due, one at a time on the server, each recorded.
 */
export class RecoveryChecks {
  /** Instances whose drill or verification runs, and those jobs. */
  private readonly checking = new Set<string>();
  private readonly work = new Set<Promise<unknown>>();

  constructor(private readonly deps: RecoveryChecksDeps) {}

  private get engine(): PgEngine {
    return this.deps.instances.engine('pg') as PgEngine;
  }

  running(instanceId: string): boolean {
    return this.checking.has(instanceId);
  }

  async idle(): Promise<void> {
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }


  begin(row: InstanceRow, kind: 'drill' | 'verify', window: RecoveryWindow) {
    this.checking.add(row.id);
    const job = (async () => {
      // Open pages show the check as running, whoever started it, and then how it ended: in that order.
      await this.deps.announce(row).catch(() => undefined);
      try {
        await (kind === 'drill' ? this.drill(row, window) : this.verifyRepository(row));
      } catch {
        // Recorded by the check itself.
      } finally {
        this.checking.delete(row.id);
        await this.deps.announce(row).catch(() => undefined);
      }
    })().finally(() => this.work.delete(job));
    this.work.add(job);
  }

  /**
   * Restores the instance to a random moment of its window into a throwaway copy, starts it, asks it
   * a query and records how long the restore took: the proof that the window is restorable, and the
   * pace a restore's plan is estimated from.
   */
  private async drill(row: InstanceRow, window: RecoveryWindow) {
    const at = this.deps.clock().toISOString();
    let target: RecoveryTarget = 'latest';
    const from = Date.parse(window.earliest!);
    const to = Date.parse(window.latest!);
    for (let attempt = 0; attempt < 5 && to > from; attempt++) {
      const moment = new Date(from + Math.random() * (to - from)).toISOString();
      if (!window.gaps.some((g) => moment >= g.from && moment <= g.to)) {
        target = { time: moment };
        break;
      }
    }
    let plan: RestorePlan | null = null;
    let recoveryMs: number | null = null;
    let ok = false;
    let detail: string;
    const copy = await this.deps.instances.scratch('pg', `drill-${row.id}`, row.id);
    try {
      plan = await this.deps.plan(row.id, { name: 'drill', target });
      const began = Date.now();
      // As for a restore: the source's user runs it, so no start of the source may end it meanwhile.
      this.deps.instances.claim(row.id);
      let outcome: Awaited<ReturnType<PgEngine['restoreToPoint']>>;
      try {
        outcome = await this.engine.restoreToPoint(this.deps.instances.runtime(row), copy.rt, { backupId: plan.backup.id, target });
      } finally {
        this.deps.instances.busy.delete(row.id);
      }
      recoveryMs = Date.now() - began;
      await this.engine.start(copy.rt);
      const databases = await this.engine.countDatabases(copy.rt);
      const reached = plan.targetTime === null || outcome.lastReplayedAt === null || outcome.lastReplayedAt <= plan.targetTime;
      ok = reached && databases > 0;
      detail = `Restored to ${plan.targetTime ?? 'the latest moment'} from backup ${plan.backup.id} in ${(recoveryMs / 1000).toFixed(1)} s; last transaction replayed ${outcome.lastReplayedAt ?? 'none'}; ${databases} database(s) answer queries.`;
      if (!reached) detail = `The restore went past its target: ${detail}`;
    } catch (error) {
      detail = `The drill failed: ${(error as Error).message}`;
    } finally {
      await copy.dispose().catch(() => undefined);
    }
    await insertRecoveryCheck(this.deps.db, {
      id: randomUUID(),
      instance_id: row.id,
      kind: 'drill',
      at,
      ok: ok ? 1 : 0,
      target_time: plan?.targetTime ?? null,
      backup_id: plan?.backup.id ?? null,
      recovery_ms: recoveryMs,
      wal_bytes: plan?.walBytes ?? null,
      detail,
    });
    await this.deps.logs.write({ level: ok ? 'information' : 'error', instanceId: row.id, handler: 'pitr', message: `Restore drill: ${detail}` });
  }

  /** pgBackRest's verify: every backup and WAL file of the repository against its checksum. */
  private async verifyRepository(row: InstanceRow) {
    const at = this.deps.clock().toISOString();
    let ok = true;
    let detail = 'Every backup and WAL file of the repository matches its checksum.';
    try {
      await this.engine.archive!.verify(this.deps.instances.runtime(row));
    } catch (error) {
      ok = false;
      detail = `The repository failed verification: ${(error as Error).message}`;
    }
    await insertRecoveryCheck(this.deps.db, { id: randomUUID(), instance_id: row.id, kind: 'verify', at, ok: ok ? 1 : 0, target_time: null, backup_id: null, recovery_ms: null, wal_bytes: null, detail });
    await this.deps.logs.write({ level: ok ? 'information' : 'error', instanceId: row.id, handler: 'pitr', message: detail });
  }

  /**
   * Starts the drill or verification that is due, one at a time server-wide: a drill a week, a
   * verification a day, the first ones once the first backup is an hour old.
   */
  async startDue(row: InstanceRow) {
    if (this.work.size > 0 || this.deps.instances.busy.has(row.id)) return;
    const lastDrill = await lastRecoveryCheck(this.deps.db, row.id, 'drill');
    const lastVerify = await lastRecoveryCheck(this.deps.db, row.id, 'verify');
    const now = this.deps.clock().getTime();
    const older = (check: RecoveryCheck | null, ms: number) => check === null || now - Date.parse(check.at) > ms;
    const drillDue = older(lastDrill, checkEvery.drillMs);
    const verifyDue = older(lastVerify, checkEvery.verifyMs);
    if (!drillDue && !verifyDue) return;
    const window = await this.deps.window(row.id);
    const first = window.backups[0];
    if (!first || now - Date.parse(first.finishedAt) < checkEvery.firstAfterMs) return;
    this.begin(row, drillDue ? 'drill' : 'verify', window);
  }
}
