import path from 'node:path';
import type { RestoreSkip } from '../../contracts/backups';
import type { Instance } from '../../contracts/instances';
import type { InstanceType } from '../../contracts/instanceValues';
import type { Clock } from '../clock';
import { runsInstances, type Config } from '../config';
import { memberIdsOfGroup } from '../db/groups';
import { clusterSpecOf, findInstance, findInstanceRow, memberPortsOf, updateInstanceRow, type InstanceChange, type InstanceRow } from '../db/instances';
import type { Db } from '../db/schema';
import type { Engine, InstanceRuntime } from '../engines/engine';
import type { Audience, EventBus } from '../hub/bus';
import { hubGroupNames } from '../hub/methods';
import { HttpProblem } from '../http/problems';
import type { LogService } from '../logs/logService';
import type { CrashState } from './crashLoop';
import { PortAllocator } from './ports';

export interface InstanceServiceDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  config: Config;
  logs: LogService;
  engines: Record<InstanceType, Engine>;
}

/** What the instances service asks of backups (set once both services exist). */
export interface InstanceBackups {
  /** Whether a backup or a verification of the instance runs now. */
  busy(instanceId: string): boolean;
  /** Backups of the instance that stay in storage after it is deleted. */
  keptFor(instanceId: string): Promise<{ count: number; bytes: number }>;
  /** Takes a backup before an update and waits for it; throws when it fails. Answers what it took. */
  beforeUpdate(instanceId: string): Promise<string>;
  /** Brings a backup another host keeps into this host's storage; answers how to remove the copy. */
  fetchFromHost(backupId: string, hostApiUrl: string, headers: Record<string, string>): Promise<() => Promise<void>>;
  /** Throws 404/409 problems when the backup cannot seed a clone of this instance. */
  checkCloneSource(instanceId: string, backupId: string): Promise<void>;
  /**
   * Makes the never-initialized `target` hold the backup's data and run. Answers what the restore
   * left out, which it also tells the log of `log.instanceId`.
   */
  restoreInto(backupId: string, target: InstanceRuntime, parameters: Record<string, string>, log: { instanceId: string }): Promise<RestoreSkip[]>;
}

/** What an engine call on an instance of another host answers. */
export const elsewhere =
  'The instance runs on another host, and only its agent reaches its files: through this server it can be started, stopped, restarted, reloaded and deleted.';

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What every instance job (creating, operating, supervising, configuring, scratch instances) shares:
 * the services it uses, the one operation running per instance, the crash history, and the one way
 * an instance is read, changed and announced.
 */
export class InstanceContext {
  /** By instance id: the operation running on it. */
  readonly busy = new Map<string, Promise<void>>();
  /** By instance id: its recent crashes and the pending start after one. */
  readonly crashes = new Map<string, CrashState>();
  readonly ports: PortAllocator;
  readonly instancesDir: string;
  backups: InstanceBackups | null = null;
  /** Whether this process runs instances (WARDEN_ROLE all or agent), and its host's id once registered. */
  readonly runsInstances: boolean;
  hostId: string | null = null;

  constructor(readonly deps: InstanceServiceDeps) {
    this.runsInstances = runsInstances(deps.config);
    this.instancesDir = path.join(deps.config.dataDir, 'instances');
    this.ports = new PortAllocator(deps.db, deps.config.instancePorts ?? { from: 15400, to: 15999 });
  }

  private readonly hostPorts = new Map<string, PortAllocator>();

  /** Hands out ports of another host's range (one allocator per host, so this server's creations there take turns). */
  portsOf(host: { id: string; ports: { from: number; to: number } }): PortAllocator {
    let ports = this.hostPorts.get(host.id);
    if (!ports) {
      ports = new PortAllocator(this.deps.db, host.ports, false);
      this.hostPorts.set(host.id, ports);
    }
    return ports;
  }

  attachBackups(backups: InstanceBackups) {
    this.backups = backups;
  }

  engine(type: InstanceType): Engine {
    return this.deps.engines[type];
  }

  /**
   * Whether this process runs the instance: it runs instances, and the instance is its host's (or
   * no host's yet: a store made before hosts, or a process that never registered one).
   */
  isLocal(row: Pick<InstanceRow, 'host_id'>): boolean {
    return this.runsInstances && (row.host_id === null || row.host_id === this.hostId);
  }

  /**
   * Where the instance's files and ports are, for the engine; 409 for an instance another host runs,
   * whose files only its agent reaches (so no engine work is ever tried on the wrong machine).
   */
  runtime(row: Pick<InstanceRow, 'id' | 'port' | 'peer_port'> & Partial<Pick<InstanceRow, 'member_ports' | 'cluster' | 'host_id'>>): InstanceRuntime {
    if (row.host_id !== undefined && !this.isLocal({ host_id: row.host_id })) {
      throw new HttpProblem(409, elsewhere);
    }
    const members = memberPortsOf({ member_ports: row.member_ports ?? null });
    const cluster = clusterSpecOf({ cluster: row.cluster ?? null });
    return {
      id: row.id,
      dir: path.join(this.instancesDir, row.id),
      port: row.port,
      peerPort: row.peer_port ?? undefined,
      ...(members.length > 0 && { members }),
      ...(cluster && { cluster }),
    };
  }

  async requireRow(id: string): Promise<InstanceRow> {
    const row = await findInstanceRow(this.deps.db, id);
    if (!row) throw new HttpProblem(404, `No instance has the id ${id}.`);
    return row;
  }

  claim(id: string) {
    if (this.busy.has(id)) throw new HttpProblem(409, 'Another operation is running on this instance: wait for it to finish.');
    this.busy.set(id, Promise.resolve());
  }

  change(id: string, change: InstanceChange) {
    return updateInstanceRow(this.deps.db, id, change);
  }

  forgetCrashes(id: string) {
    const state = this.crashes.get(id);
    if (state?.timer) clearTimeout(state.timer);
    this.crashes.delete(id);
  }

  /** List-level and instance-level listeners who may see this instance: admins and its group's members. */
  async audience(row: Pick<InstanceRow, 'id' | 'group_id'>): Promise<Audience> {
    const userIds = await memberIdsOfGroup(this.deps.db, row.group_id);
    return { kind: 'scoped', groups: [hubGroupNames.instances, hubGroupNames.instance(row.id)], userIds };
  }

  async publishInstance(event: 'InstanceCreated' | 'InstanceUpdated', id: string, known?: Instance) {
    const instance = known ?? (await findInstance(this.deps.db, id));
    if (!instance) return;
    this.deps.bus.publish({ event, payload: { instance }, audience: await this.audience({ id, group_id: instance.groupId }) });
  }
}
