import { hasRole } from '../../contracts/roles';
import type { Statistics } from '../../contracts/statistics';
import type { Clock } from '../clock';
import { groupIdsOfUser } from '../db/groups';
import type { Db } from '../db/schema';
import type { Audience, EventBus } from '../hub/bus';
import { closeConnectionsEvent, type HubPrincipal } from '../hub/hub';
import { computeStatistics } from './statistics';

// StatisticsChanged (DESIGN §8): every signed-in connection gets its own figures when they change,
// at most once a second. Events on the bus only mark the figures dirty; a timer then computes them
// once per distinct scope among the connected users (all admins share one; regular users with the
// same groups share one) and pushes to a scope only when its figures differ from the last pushed.

/** Events that never change a figure (and would otherwise wake the publisher for nothing). */
const quietEvents = new Set(['StatisticsChanged', 'MetricsAppended', 'DebugMessage', closeConnectionsEvent]);

export const statisticsDefaults = { intervalMs: 1000, refreshMs: 60_000 } as const;

export interface StatisticsPublisherDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  connected: () => HubPrincipal[];
  log: { warn(obj: object, msg?: string): void };
  /** The debounce: figures are computed at most this often. */
  intervalMs?: number;
  /** Recomputed this often even without events: "in the last 24 hours" moves on by itself. */
  refreshMs?: number;
}

/** The figures without their time: what "changed" compares. */
const fingerprint = (statistics: Statistics) => JSON.stringify({ ...statistics, generatedAt: undefined });

export class StatisticsPublisher {
  private dirty = false;
  private lastComputed = 0;
  private readonly pushed = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly deps: StatisticsPublisherDeps) {}

  start(): void {
    this.unsubscribe = this.deps.bus.subscribe((event) => {
      if (!quietEvents.has(event.event)) this.dirty = true;
    });
    this.timer = setInterval(() => void this.tick(), this.deps.intervalMs ?? statisticsDefaults.intervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private async tick() {
    const now = this.deps.clock().getTime();
    const due = now - this.lastComputed >= (this.deps.refreshMs ?? statisticsDefaults.refreshMs);
    if (!this.dirty && !due) return;
    try {
      await this.publishChanges();
    } catch (error) {
      this.deps.log.warn({ err: error }, 'statistics push failed');
    }
  }

  /** Computes every connected scope's figures and pushes those that changed; the timer calls it. */
  publishChanges(): Promise<void> {
    this.running ??= this.publish().finally(() => (this.running = null));
    return this.running;
  }

  private async publish() {
    const wasDirty = this.dirty;
    this.dirty = false;
    const now = this.deps.clock();
    this.lastComputed = now.getTime();
    const scopes = await this.connectedScopes();
    for (const [key, scope] of scopes) {
      const statistics = await computeStatistics(this.deps.db, { groupIds: scope.groupIds }, now);
      const print = fingerprint(statistics);
      const previous = this.pushed.get(key);
      this.pushed.set(key, print);
      // A scope seen for the first time was just read over HTTP, unless something changed since.
      if (previous === print || (previous === undefined && !wasDirty)) continue;
      this.deps.bus.publish({ event: 'StatisticsChanged', payload: statistics, audience: scope.audience });
    }
    for (const key of this.pushed.keys()) if (!scopes.has(key)) this.pushed.delete(key);
  }

  private async connectedScopes() {
    const scopes = new Map<string, { groupIds: string[] | null; audience: Audience }>();
    const regular = new Map<string, string[]>();
    for (const principal of this.deps.connected()) {
      if (hasRole(principal, 'admin')) scopes.set('admins', { groupIds: null, audience: { kind: 'admins' } });
      else if (!regular.has(principal.userId)) regular.set(principal.userId, await groupIdsOfUser(this.deps.db, principal.userId));
    }
    for (const [userId, groupIds] of regular) {
      const key = [...groupIds].sort().join(',');
      const scope = scopes.get(key);
      if (scope?.audience.kind === 'users') scope.audience.userIds.push(userId);
      else scopes.set(key, { groupIds, audience: { kind: 'users', userIds: [userId] } });
    }
    return scopes;
  }
}
