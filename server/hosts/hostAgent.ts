import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HostChangedPayload } from '../../contracts/hosts';
import type { OperationKind } from '../../contracts/instances';
import type { Clock } from '../clock';
import { hostDefaults, instanceDefaults, type Config } from '../config';
import type { Db } from '../db/schema';
import type { EventBus } from '../hub/bus';
import type { InstanceService } from '../instances/instanceService';
import { wardenVersion } from '../version';
import { refused, runQueued } from './hostOperations';
import { claimNext, finish, takeCutOff } from './hostQueue';
import { heartbeat, hostView, registerHost, type HostFacts } from './hostStore';

export interface HostAgentDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  config: Config;
  instances: InstanceService;
  warn: (message: string, error: unknown) => void;
}

/** How often the agent looks for queued operations. */
const queuePollMs = 250;

/** Announces a host's change to admins. */
export async function publishHost(db: Db, bus: EventBus, id: string, change: HostChangedPayload['change']): Promise<void> {
  const host = await hostView(db, id);
  if (host) bus.publish({ event: 'HostChanged', payload: { host, change } satisfies HostChangedPayload, audience: { kind: 'admins' } });
}

/**
 * The host side of a process that runs instances: registers its machine as a host, takes the
 * instances no host has yet, heartbeats, and runs the operations API servers queue for it.
 */
export class HostAgent {
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private queueTimer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private readonly running = new Set<Promise<void>>();
  private claimer = '';
  private closed = false;

  constructor(private readonly deps: HostAgentDeps) {}

  get hostId(): string | null {
    return this.deps.instances.hostId;
  }

  /** Registers the host (again, after a restart) and adopts instances without one; before supervision starts. */
  async register(): Promise<void> {
    const { db, instances, clock } = this.deps;
    const { host, wasLost, created } = await registerHost(db, this.facts(), clock());
    instances.hostId = host.id;
    this.claimer = `${host.id}/${host.started_at}/${process.pid}`;
    await db.updateTable('instances').set({ host_id: host.id }).where('host_id', 'is', null).execute();
    // Operations an earlier run of this agent took and did not finish were cut off by its stop: said so.
    for (const op of await takeCutOff(db, host.id, this.claimer)) {
      await refused(instances, op.instance_id, op.kind as OperationKind, 'its host\'s agent stopped before the operation finished: try again.');
    }
    await publishHost(db, this.deps.bus, host.id, created ? 'registered' : wasLost ? 'returned' : 'updated');
  }

  /**
   * Where servers forward the calls on this host's instances that need their files: this process's
   * API, at the address it listens on (WARDEN_HOST), or at the host's address when it listens on all.
   */
  async listening(port: number): Promise<void> {
    const id = this.hostId;
    if (!id) return;
    const { host, hostAddress } = this.deps.config;
    const address = host === '0.0.0.0' || host === '::' ? (hostAddress ?? hostDefaults.address) : host;
    const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
    await this.deps.db.updateTable('hosts').set({ api_url: url }).where('id', '=', id).execute();
  }

  /** Heartbeats and takes queued operations until closed. */
  start(): void {
    const interval = this.deps.config.heartbeatMs ?? hostDefaults.heartbeatMs;
    this.heartbeatTimer = setInterval(() => void this.beat().catch((error: unknown) => this.deps.warn('Heartbeat failed', error)), interval);
    this.heartbeatTimer.unref();
    this.queueTimer = setInterval(() => void this.poll(), queuePollMs);
    this.queueTimer.unref();
  }

  /** Stops heartbeating and taking operations, and waits (a while) for the ones running. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.queueTimer) clearInterval(this.queueTimer);
    const pending = Promise.allSettled([this.polling, ...this.running]);
    await Promise.race([pending, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
  }

  async beat(): Promise<void> {
    const id = this.hostId;
    if (this.closed || !id) return;
    const { known, wasLost } = await heartbeat(this.deps.db, id, this.diskFree(), this.deps.clock());
    // Removed from the store (or a store swapped under it): register again.
    if (!known) await this.register();
    else if (wasLost) await publishHost(this.deps.db, this.deps.bus, id, 'returned');
  }

  /** Takes every waiting operation; each runs on its own, as operations on different instances may. */
  poll(): Promise<void> {
    this.polling ??= (async () => {
      const id = this.hostId;
      while (!this.closed && id) {
        const op = await claimNext(this.deps.db, id, this.claimer, this.deps.clock());
        if (!op) break;
        const run = runQueued(this.deps.instances, op)
          .then(() => finish(this.deps.db, op.id))
          .catch((error: unknown) => this.deps.warn(`Queued ${op.kind} of instance ${op.instance_id} failed`, error))
          .finally(() => this.running.delete(run));
        this.running.add(run);
      }
    })()
      .catch((error: unknown) => this.deps.warn('Could not take queued operations', error))
      .finally(() => {
        this.polling = null;
      });
    return this.polling;
  }

  private facts(): HostFacts {
    const { config } = this.deps;
    return {
      name: config.hostName ?? os.hostname(),
      address: config.hostAddress ?? hostDefaults.address,
      cores: os.cpus().length,
      memoryBytes: os.totalmem(),
      diskFreeBytes: this.diskFree(),
      ports: config.instancePorts ?? instanceDefaults.instancePorts,
      agentVersion: wardenVersion,
      heartbeatMs: config.heartbeatMs ?? hostDefaults.heartbeatMs,
    };
  }

  private diskFree(): number {
    // The data folder may not exist yet (no instance made): the disk it will be on.
    let dir = this.deps.config.dataDir;
    while (!fs.existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
    try {
      const stats = fs.statfsSync(dir);
      return stats.bavail * stats.bsize;
    } catch {
      return 0;
    }
  }
}
