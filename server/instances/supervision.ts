import { allInstanceRows, findInstanceRow } from '../db/instances';
import { crashBackoffMs, crashBurst, crashWindowMs } from './crashLoop';
import type { InstanceContext } from './instanceContext';
import { probeInto, refresh } from './instanceHealth';
import { launch, startEngine } from './lifecycle';
import { removeLeftoverScratch } from './scratchInstances';

/**
 * Keeps instances in their desired state: reconciles after a server start, probes every instance on
 * a timer, and starts crashed engines again until a crash loop leaves one offline.
 */
export class Supervisor {
  private probeTimer: NodeJS.Timeout | null = null;
  private probing: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly ctx: InstanceContext) {}

  /**
   * After a server start: operations cut off by the stop are cleared, running instances are adopted
   * as they are (never restarted), instances that should run and do not are started.
   */
  async reconcile(): Promise<void> {
    await removeLeftoverScratch(this.ctx);
    for (const row of await this.localRows()) {
      if (row.operation_kind) await this.ctx.change(row.id, { operation_kind: null, operation_started_at: null });
      const engine = this.ctx.engine(row.type);
      const rt = this.ctx.runtime(row);
      if (row.status === 'unInitialized') {
        if (row.operation_kind) {
          await this.ctx.change(row.id, { status_reason: 'Initialization was interrupted by a server stop: start the instance to try again.' });
        }
        continue;
      }
      this.ctx.deps.logs.tail(row.id, engine.logDir(rt), row.type);
      if (engine.pid(rt) !== null || row.desired_state === 'stopped') {
        await refresh(this.ctx, row.id);
      } else {
        launch(this.ctx, row.id, 'start', async (current) => {
          await startEngine(this.ctx, current, rt, engine);
          return 'started after a server start';
        });
      }
    }
  }

  /** Reconciles, then probes every instance each `probeIntervalMs` and tails their logs. */
  async start(): Promise<void> {
    await this.reconcile();
    this.ctx.deps.logs.start();
    const interval = this.ctx.deps.config.probeIntervalMs ?? 5000;
    this.probeTimer = setInterval(() => void this.probeAll(), interval);
    this.probeTimer.unref();
  }

  probeAll(): Promise<void> {
    this.probing ??= (async () => {
      for (const row of await this.localRows()) {
        if (this.closed) return;
        if (!this.ctx.busy.has(row.id) && !row.operation_kind) {
          await refresh(this.ctx, row.id).catch(() => undefined);
          await this.restartIfCrashed(row.id).catch(() => undefined);
        }
      }
    })().finally(() => {
      this.probing = null;
    });
    return this.probing;
  }

  /** The instances this process runs: another host's agent supervises its own. */
  private async localRows() {
    return (await allInstanceRows(this.ctx.deps.db)).filter((row) => this.ctx.isLocal(row));
  }

  /** Stops probing and waits (a while) for running operations; the instances keep running. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.probeTimer) clearInterval(this.probeTimer);
    for (const state of this.ctx.crashes.values()) if (state.timer) clearTimeout(state.timer);
    const pending = Promise.allSettled([...this.ctx.busy.values(), this.probing]);
    await Promise.race([pending, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    await this.ctx.deps.logs.stop();
  }

  /**
   * An instance that should run, whose process is gone while no operation runs, crashed: it is
   * started again after a backoff (a timer, and every probe, check whether the start is due), until
   * the fifth crash within the window leaves it offline as a crash loop.
   */
  private async restartIfCrashed(id: string): Promise<void> {
    if (this.closed || this.ctx.busy.has(id)) return;
    const row = await findInstanceRow(this.ctx.deps.db, id);
    // Checked again after the read: a start launched meanwhile is not a crash.
    if (this.closed || this.ctx.busy.has(id)) return;
    if (!row || row.status === 'unInitialized' || row.desired_state !== 'running' || row.operation_kind) return;
    const engine = this.ctx.engine(row.type);
    const rt = this.ctx.runtime(row);
    // A cluster that lost a member still runs: the member's start is due all the same.
    const lostMembers = engine.pid(rt) === null ? null : engine.stoppedMembers(rt);
    if (lostMembers?.length === 0) return;
    const what = lostMembers ? `Member ${lostMembers.join(', ')} of the cluster stopped` : 'The engine process is gone';
    const state = this.ctx.crashes.get(id) ?? { at: [], nextStartAt: null, gaveUp: false, timer: null };
    this.ctx.crashes.set(id, state);
    if (state.gaveUp) return;
    const now = this.ctx.deps.clock().getTime();
    if (state.nextStartAt === null) {
      state.at = [...state.at.filter((t) => now - t < crashWindowMs), now];
      if (state.at.length >= crashBurst) {
        state.gaveUp = true;
        await probeInto(this.ctx, row, rt, engine);
        await this.ctx.deps.logs.write({
          level: 'error',
          instanceId: id,
          handler: 'supervisor',
          message: `The engine stopped ${state.at.length} times within ${crashWindowMs / 60_000} minutes: left offline (crash loop). Start it to try again.`,
          properties: { crashes: state.at.length },
        });
        return;
      }
      const delay = crashBackoffMs(state.at.length);
      state.nextStartAt = now + delay;
      state.timer = setTimeout(() => void this.restartIfCrashed(id).catch(() => undefined), delay);
      state.timer.unref();
      await this.ctx.deps.logs.write({
        level: 'warning',
        instanceId: id,
        handler: 'supervisor',
        message: `${what} (crash ${state.at.length} within ${crashWindowMs / 60_000} minutes; at ${crashBurst} it is left offline): starting it again in ${delay / 1000} s.`,
        properties: { crashes: state.at.length, delayMs: delay },
      });
      return;
    }
    if (now < state.nextStartAt) return;
    state.nextStartAt = null;
    if (state.timer) clearTimeout(state.timer);
    state.timer = null;
    const crashes = state.at.length;
    launch(this.ctx, id, 'start', async (current, currentRt) => {
      await startEngine(this.ctx, current, currentRt, engine);
      return `started again after a crash (${crashes} within ${crashWindowMs / 60_000} minutes)`;
    });
  }
}
