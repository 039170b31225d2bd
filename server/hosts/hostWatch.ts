import type { InstanceContext } from '../instances/instanceContext';
import { settle } from '../instances/instanceHealth';
import { publishHost } from './hostAgent';
import { markLostHosts, type HostRow } from './hostStore';

/** How often a server looks for hosts that stopped heartbeating. */
const watchMs = 1000;

/**
 * Finds hosts whose agent stopped heartbeating (for `hostLostAfterBeats` of its heartbeats) and shows them
 * as lost and their instances as unknown: nobody can tell whether they run, and they may well run
 * on. Every server watches; a conditional update lets exactly one of them announce each loss. The
 * host's agent, back, probes its instances and their true status returns.
 */
export class HostWatch {
  private timer: NodeJS.Timeout | null = null;
  private watching: Promise<void> | null = null;

  constructor(
    private readonly ctx: InstanceContext,
    private readonly warn: (message: string, error: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.check(), watchMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.watching;
  }

  check(): Promise<void> {
    this.watching ??= (async () => {
      const { db, clock } = this.ctx.deps;
      for (const host of await markLostHosts(db, clock(), this.ctx.hostId)) await this.lose(host);
    })()
      .catch((error: unknown) => this.warn('Could not check the hosts\' heartbeats', error))
      .finally(() => {
        this.watching = null;
      });
    return this.watching;
  }

  private async lose(host: HostRow): Promise<void> {
    const { db, bus } = this.ctx.deps;
    await publishHost(db, bus, host.id, 'lost');
    const reason = `Host ${host.name} is lost: its agent has not heartbeat since ${host.heartbeat_at}.`;
    const rows = await db.selectFrom('instances').select('id').where('host_id', '=', host.id).where('status', '!=', 'unInitialized').execute();
    for (const { id } of rows) {
      await settle(this.ctx, id, 'unknown', reason, { level: 'warn', checks: [{ name: 'host', level: 'warn', message: reason }] });
    }
  }
}
