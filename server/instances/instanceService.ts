import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type {
  ConfigChange,
  Health,
  Instance,
  InstanceConfig,
  InstanceStatus,
  InstanceStatusChangedPayload,
  OperationCompletedPayload,
  OperationKind,
  UpdateConfigResponse,
} from '../../contracts/instances';
import { formatBytes } from '../../contracts/backupValues';
import { instanceNameProblem, type InstanceType } from '../../contracts/instanceValues';
import type { Clock } from '../clock';
import type { Config } from '../config';
import {
  allInstanceRows,
  deleteInstanceRow,
  DuplicateInstanceNameError,
  findInstance,
  findInstanceRow,
  insertInstance,
  instanceNameTaken,
  instanceNameUnavailable,
  updateInstanceRow,
  type InstanceChange,
  type InstanceRow,
} from '../db/instances';
import { findGroup, groupUsage, memberIdsOfGroup } from '../db/groups';
import type { Db } from '../db/schema';
import type { Engine, EngineHealth, InstanceRuntime } from '../engines/engine';
import { mayEdit, parameterPolicy, policyErrors, refusal } from '../engines/parameterPolicy';
import { EngineError, removeInstanceUser } from '../engines/processRunner';
import type { Audience, EventBus } from '../hub/bus';
import { hubGroupNames } from '../hub/methods';
import { HttpProblem, validationProblem } from '../http/problems';
import type { LogService } from '../logs/logService';
import { engineCanReach } from './reach';
import { PortAllocator } from './ports';
import { latestRevision, listRevisions, recordRevision, revisionParameters } from './revisions';

export interface InstanceServiceDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  config: Config;
  logs: LogService;
  engines: Record<InstanceType, Engine>;
}

export interface CreateInput {
  name: string;
  type: InstanceType;
  groupId: string | null;
  description: string;
  parameters: Record<string, string>;
}

/** What the instances service asks of backups (set once both services exist). */
export interface InstanceBackups {
  /** Whether a backup or a verification of the instance runs now. */
  busy(instanceId: string): boolean;
  /** Backups of the instance that stay in storage after it is deleted. */
  keptFor(instanceId: string): Promise<{ count: number; bytes: number }>;
  /** Takes a backup before an update and waits for it; throws when it fails. Answers what it took. */
  beforeUpdate(instanceId: string): Promise<string>;
  /** Throws 404/409 problems when the backup cannot seed a clone of this instance. */
  checkCloneSource(instanceId: string, backupId: string): Promise<void>;
  /** Makes the never-initialized `target` hold the backup's data and run. */
  restoreInto(backupId: string, target: InstanceRuntime, parameters: Record<string, string>): Promise<void>;
}

const stoppedHealth: Health = { level: 'good', checks: [{ name: 'process', level: 'good', message: 'stopped on request' }] };

/**
 * Restarting crashed engines, like systemd's Restart=on-failure with a start limit: the delay doubles
 * from 1 s up to a minute, and the fifth crash within ten minutes leaves the instance offline.
 */
const crashBurst = 5;
const crashWindowMs = 10 * 60_000;
const crashLoopReason = `crash loop: the engine stopped ${crashBurst} times within ${crashWindowMs / 60_000} minutes; start it to try again`;
function crashBackoffMs(crashes: number): number {
  return Math.min(1000 * 2 ** (crashes - 1), 60_000);
}

interface CrashState {
  /** When each crash within the window was found (clock ms). */
  at: number[];
  /** When the pending start is due; null when none is pending. */
  nextStartAt: number | null;
  gaveUp: boolean;
  timer: NodeJS.Timeout | null;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Why a probe says the instance is not serving, in one line. */
function failingChecks(health: EngineHealth): string {
  return health.checks.filter((c) => c.level === 'error').map((c) => `${c.name}: ${c.message}`).join('; ') || 'not answering';
}

/**
 * Runs instances (DESIGN §5): creates them through their engine, keeps desired state in the store,
 * runs one operation per instance at a time, probes health, and reconciles after a server start.
 * Every change goes out through the event bus. Server shutdown leaves instances running.
 */
export class InstanceService {
  private readonly busy = new Map<string, Promise<void>>();
  private readonly ports: PortAllocator;
  private probeTimer: NodeJS.Timeout | null = null;
  private probing: Promise<void> | null = null;
  private closed = false;
  private backups: InstanceBackups | null = null;
  private readonly crashes = new Map<string, CrashState>();
  readonly instancesDir: string;

  constructor(private readonly deps: InstanceServiceDeps) {
    this.instancesDir = path.join(deps.config.dataDir, 'instances');
    this.ports = new PortAllocator(deps.db, deps.config.instancePorts ?? { from: 15400, to: 15999 });
  }

  attachBackups(backups: InstanceBackups) {
    this.backups = backups;
  }

  engine(type: InstanceType): Engine {
    return this.deps.engines[type];
  }

  runtime(row: Pick<InstanceRow, 'id' | 'port' | 'peer_port'>): InstanceRuntime {
    return { id: row.id, dir: path.join(this.instancesDir, row.id), port: row.port, peerPort: row.peer_port ?? undefined };
  }

  // ---- Names ----

  async nameProblem(name: string): Promise<string | null> {
    const local = instanceNameProblem(name);
    if (local) return local;
    return (await instanceNameTaken(this.deps.db, name)) ? instanceNameUnavailable : null;
  }

  // ---- Create and clone ----

  async create(input: CreateInput, author: string | null, isAdmin = false): Promise<Instance> {
    const nameProblem = await this.nameProblem(input.name);
    if (nameProblem) throw validationProblem({ name: [nameProblem] });
    const engine = this.engine(input.type);
    await this.ensureUsable(engine);
    if (Object.keys(input.parameters).length > 0) {
      const refused = policyErrors(input.type, input.parameters, isAdmin);
      const errors = Object.keys(refused).length > 0 ? refused : await this.checkInitialParameters(engine, input.parameters);
      if (Object.keys(errors).length > 0) throw validationProblem(errors);
    }
    const id = randomUUID();
    const instance = await this.insert(id, input, author, 'create');
    this.launch(id, 'create', async (row, rt) => {
      await engine.initialize(rt, input.parameters);
      await this.change(id, { status: 'stopped', status_reason: null, engine_version: await engine.version() });
      if (Object.keys(input.parameters).length > 0) {
        await recordRevision(this.deps.db, id, author, this.deps.clock(), input.parameters, {});
      }
      await this.startEngine(row, rt, engine);
      return null;
    });
    return instance;
  }

  /** A new instance holding a backup's data (DESIGN §10 clone with backupId); the source is not touched. */
  async cloneFromBackup(
    sourceId: string,
    input: { name: string; backupId: string; description?: string },
    author: string | null,
  ): Promise<Instance> {
    const source = await this.requireRow(sourceId);
    if (!this.backups) throw new HttpProblem(503, 'Backups are not available on this server.');
    await this.backups.checkCloneSource(sourceId, input.backupId);
    const engine = await this.checkCopy(source, input.name);
    const id = randomUUID();
    const instance = await this.insertCopy(id, source, input.name, input.description ?? `Restored from a backup of ${source.name}`, author);
    const backups = this.backups;
    this.launch(id, 'clone', async (row, rt) => {
      const saved = await revisionParameters(this.deps.db, sourceId);
      this.deps.logs.tail(id, engine.logDir(rt), row.type);
      await backups.restoreInto(input.backupId, rt, saved);
      if (Object.keys(saved).length > 0) await recordRevision(this.deps.db, id, author, this.deps.clock(), saved, {});
      await this.change(id, { status: 'stopped', status_reason: null, engine_version: await engine.version() });
      await this.probeInto(row, rt, engine);
      return `restored from backup ${input.backupId} of ${source.name}`;
    });
    return instance;
  }

  async clone(sourceId: string, input: { name: string; description?: string }, author: string | null): Promise<Instance> {
    const source = await this.requireRow(sourceId);
    if (source.status === 'unInitialized') throw new HttpProblem(409, 'The instance has no data yet: nothing to clone.');
    const engine = await this.checkCopy(source, input.name);
    this.claim(sourceId);
    const id = randomUUID();
    let instance: Instance;
    try {
      instance = await this.insertCopy(id, source, input.name, input.description ?? `Clone of ${source.name}`, author);
    } catch (error) {
      this.busy.delete(sourceId);
      throw error;
    }
    await this.change(sourceId, { operation_kind: 'clone', operation_started_at: this.deps.clock().toISOString() });
    await this.publishInstance('InstanceUpdated', sourceId);
    const copied = (async () => {
      try {
        await engine.clone(this.runtime(source), this.runtime({ id, port: instance.port, peer_port: (await this.requireRow(id)).peer_port }));
      } finally {
        await this.change(sourceId, { operation_kind: null, operation_started_at: null });
        this.busy.delete(sourceId);
        await this.publishInstance('InstanceUpdated', sourceId);
      }
    })();
    this.launch(id, 'clone', async (row, rt) => {
      await copied;
      const saved = await revisionParameters(this.deps.db, sourceId);
      if (Object.keys(saved).length > 0) await recordRevision(this.deps.db, id, author, this.deps.clock(), saved, {});
      await this.change(id, { status: 'stopped', status_reason: null, engine_version: source.engine_version });
      await this.startEngine(row, rt, engine);
      return `cloned from ${source.name}`;
    });
    return instance;
  }

  /** Whether a copy of `source` named `name` can be made here; answers the engine to make it with. */
  private async checkCopy(source: InstanceRow, name: string): Promise<Engine> {
    const nameProblem = await this.nameProblem(name);
    if (nameProblem) throw validationProblem({ name: [nameProblem] });
    const engine = this.engine(source.type);
    await this.ensureUsable(engine);
    return engine;
  }

  /** The record of a copy: the source's type and group, its own name, ports and description. */
  private insertCopy(id: string, source: InstanceRow, name: string, description: string, author: string | null): Promise<Instance> {
    return this.insert(id, { name, type: source.type, groupId: source.group_id, description, parameters: {} }, author, 'clone');
  }

  private async insert(id: string, input: CreateInput, author: string | null, kind: OperationKind): Promise<Instance> {
    const now = this.deps.clock().toISOString();
    await this.ports.withPorts(input.type === 'etcd' ? 2 : 1, async ([port, peerPort]) => {
      // Checked where inserts run one at a time, so two creations cannot both take the last place.
      if (input.groupId) await this.checkInstanceQuota(input.groupId);
      try {
        await insertInstance(this.deps.db, {
          id,
          name: input.name,
          type: input.type,
          status: 'unInitialized',
          desired_state: 'running',
          status_reason: null,
          health_level: 'good',
          health_checks: '[]',
          group_id: input.groupId,
          engine_version: null,
          port,
          peer_port: peerPort ?? null,
          description: input.description,
          created_at: now,
          created_by: author,
          last_backup_at: null,
          operation_kind: kind,
          operation_started_at: now,
        });
      } catch (error) {
        if (error instanceof DuplicateInstanceNameError) throw validationProblem({ name: [error.message] });
        throw error;
      }
    });
    const instance = (await findInstance(this.deps.db, id))!;
    await this.publishInstance('InstanceCreated', id, instance);
    return instance;
  }

  /** 409 when the group already holds as many instances as its quota allows. */
  private async checkInstanceQuota(groupId: string) {
    const group = await findGroup(this.deps.db, groupId);
    const max = group?.quota.maxInstances ?? null;
    if (!group || max === null) return;
    if ((await groupUsage(this.deps.db, groupId)).instances >= max) {
      throw new HttpProblem(409, `group '${group.name}' has reached its quota of ${max} instance${max === 1 ? '' : 's'}`, { title: 'Quota reached' });
    }
  }

  private async ensureUsable(engine: Engine) {
    const missing = await engine.unavailable();
    if (missing) throw new HttpProblem(503, missing, { title: 'Engine not installed' });
    const unreachable = engineCanReach(this.instancesDir);
    if (unreachable) throw new HttpProblem(503, unreachable, { title: 'Instance folder not reachable' });
  }

  private async checkInitialParameters(engine: Engine, parameters: Record<string, string>): Promise<Record<string, string[]>> {
    const probe: InstanceRuntime = { id: 'new', dir: path.join(this.instancesDir, '.not-created'), port: 0 };
    try {
      return await engine.validate(probe, parameters);
    } catch {
      // No instance of this release ever ran: names are checked now, values when it starts.
      const errors: Record<string, string[]> = {};
      for (const name of Object.keys(parameters)) {
        if (!/^[a-z][a-z0-9_.-]*$/.test(name)) errors[name] = [`${name} is not a parameter name.`];
      }
      return errors;
    }
  }

  // ---- Lifecycle operations ----

  async start(id: string): Promise<Instance> {
    await this.requireRow(id);
    // A start by hand is a fresh chance: the crash count starts again.
    this.forgetCrashes(id);
    return this.operate(id, 'start', { desired_state: 'running' }, async (row, rt, engine) => {
      if (row.status === 'unInitialized') {
        await engine.initialize(rt, await revisionParameters(this.deps.db, id));
        await this.change(id, { engine_version: await engine.version() });
      }
      await this.startEngine(row, rt, engine);
      return null;
    });
  }

  async stop(id: string): Promise<Instance> {
    const row = await this.requireRow(id);
    if (row.status === 'unInitialized') throw new HttpProblem(409, 'The instance was never initialized: there is nothing to stop.');
    this.forgetCrashes(id);
    return this.operate(id, 'stop', { desired_state: 'stopped' }, async (_row, rt, engine) => {
      await engine.stop(rt);
      await this.settle(id, 'stopped', null, stoppedHealth);
      return null;
    });
  }

  async restart(id: string): Promise<Instance> {
    const row = await this.requireRow(id);
    if (row.status === 'unInitialized') throw new HttpProblem(409, 'The instance was never initialized: start it instead.');
    this.forgetCrashes(id);
    return this.operate(id, 'restart', { desired_state: 'running' }, async (current, rt, engine) => {
      if (engine.pid(rt) === null) await this.startEngine(current, rt, engine);
      else {
        await this.resetManaged(id, rt, engine);
        await engine.restart(rt);
        await this.probeInto(current, rt, engine);
      }
      return null;
    });
  }

  async reload(id: string): Promise<Instance> {
    const row = await this.requireRow(id);
    if (row.status !== 'running') throw new HttpProblem(409, `The instance is ${row.status}: only a running instance reloads its configuration.`);
    return this.operate(id, 'reload', {}, async (current, rt, engine) => {
      const report = await engine.reload(rt);
      await this.probeInto(current, rt, engine);
      return reloadDetail(report.errors, report.pendingRestart);
    });
  }

  /** Restarts onto the newest installed engine release (the same binaries path: a minor update). */
  async update(id: string): Promise<Instance> {
    const row = await this.requireRow(id);
    if (row.status === 'unInitialized') throw new HttpProblem(409, 'The instance was never initialized: there is nothing to update.');
    return this.operate(id, 'update', {}, async (current, rt, engine) => {
      // A backup first, so an update that goes wrong can be undone by restoring it.
      const taken = this.backups ? await this.backups.beforeUpdate(id) : null;
      const latest = await engine.version();
      if (engine.pid(rt) !== null) {
        await engine.restart(rt);
        await this.probeInto(current, rt, engine);
      }
      await this.change(id, { engine_version: latest });
      return `now on ${latest}${taken ? `; ${taken}` : ''}`;
    });
  }

  async delete(id: string, force: boolean): Promise<{ id: string; backups: string }> {
    const row = await this.requireRow(id);
    const engine = this.engine(row.type);
    const rt = this.runtime(row);
    if (engine.pid(rt) !== null && !force) {
      throw new HttpProblem(409, `${row.name} is running: stop it first, or delete with force to stop and delete it.`);
    }
    if (this.backups?.busy(id)) throw new HttpProblem(409, `A backup of ${row.name} is being taken or verified: wait for it to finish.`);
    this.claim(id);
    try {
      await this.change(id, { operation_kind: 'delete', operation_started_at: this.deps.clock().toISOString() });
      await this.publishInstance('InstanceUpdated', id);
      this.deps.logs.untail(id);
      if (engine.pid(rt) !== null) await engine.stop(rt);
      if (fs.existsSync(rt.dir)) await engine.remove(rt);
      // Also when the folder was already gone (a delete retried after a failure).
      removeInstanceUser(rt.id);
      const audience = await this.audience(row);
      this.forgetCrashes(id);
      await deleteInstanceRow(this.deps.db, id);
      this.deps.bus.publish({ event: 'InstanceDeleted', payload: { id }, audience });
      await this.deps.logs.write({
        level: 'information',
        instanceId: null,
        handler: 'supervisor',
        message: `Instance ${row.name} (${row.type}) deleted with its data folder.`,
      });
    } catch (error) {
      await this.change(id, { operation_kind: null, operation_started_at: null }).catch(() => undefined);
      throw error instanceof EngineError ? new HttpProblem(409, error.message) : error;
    } finally {
      this.busy.delete(id);
    }
    const kept = (await this.backups?.keptFor(id)) ?? { count: 0, bytes: 0 };
    const backups =
      kept.count === 0
        ? 'The instance had no backups in Warden; its data folder was removed.'
        : `Its data folder was removed; its ${kept.count === 1 ? 'backup is' : `${kept.count} backups are`} kept (${formatBytes(kept.bytes)}): an admin can restore or delete ${kept.count === 1 ? 'it' : 'them'} from Backups.`;
    return { id, backups };
  }

  // ---- Configuration ----

  /** The parameters with who may set each; managed values that name host paths are an admin's to see. */
  async configuration(id: string, isAdmin = false): Promise<InstanceConfig> {
    const row = await this.requireRow(id);
    if (row.status === 'unInitialized') throw new HttpProblem(409, 'The instance is not initialized yet: its configuration does not exist.');
    const rt = this.runtime(row);
    const engine = this.engine(row.type);
    try {
      const parameters = (await engine.parameters(rt)).map((p) => {
        const { policy } = parameterPolicy(row.type, p.name);
        const hidden = !isAdmin && policy === 'managed' && p.value.includes('/');
        return { ...p, value: hidden ? '(set by Warden)' : p.value, policy, editable: mayEdit(policy, isAdmin), reason: refusal(row.type, p.name, isAdmin) };
      });
      const pendingRestart = await engine.pendingRestart(rt);
      return { revision: (await latestRevision(this.deps.db, id))?.revision ?? 0, parameters, pendingRestart };
    } catch (error) {
      if (error instanceof EngineError) throw new HttpProblem(409, error.message);
      throw error;
    }
  }

  /**
   * Validates the changes against the engine's parameter metadata, saves them as a revision and
   * applies them: a reload for reload-only changes, a restart (as an operation) when asked.
   */
  async configure(
    id: string,
    changes: Record<string, string>,
    apply: 'none' | 'reload' | 'restart',
    author: string | null,
    isAdmin = false,
  ): Promise<UpdateConfigResponse> {
    const row = await this.requireRow(id);
    if (row.status === 'unInitialized') throw new HttpProblem(409, 'The instance is not initialized yet: wait for it to be created.');
    if (Object.keys(changes).length === 0) throw validationProblem({ parameters: ['Name at least one parameter to change.'] });
    const engine = this.engine(row.type);
    const rt = this.runtime(row);
    this.claim(id);
    let result: { reload: string[]; restart: string[] };
    let revision: number;
    try {
      let errors: Record<string, string[]>;
      try {
        // Every parameter is reported at once: what the caller may not set, and what is wrong with the rest.
        const refused = policyErrors(row.type, changes, isAdmin);
        const allowed = Object.fromEntries(Object.entries(changes).filter(([name]) => !(name in refused)));
        errors = { ...(await engine.validate(rt, allowed)), ...refused };
      } catch (error) {
        throw error instanceof EngineError ? new HttpProblem(409, error.message) : error;
      }
      // Nothing is written when any parameter is refused.
      if (Object.keys(errors).length > 0) throw validationProblem(errors);
      // The previous value as the console saved it (with its unit), else the engine's current setting.
      const saved = await revisionParameters(this.deps.db, id);
      const before = new Map((await engine.parameters(rt)).map((p) => [p.name, saved[p.name] ?? p.value]));
      result = await engine.apply(rt, changes);
      const diff: ConfigChange[] = Object.entries(changes).map(([name, to]) => ({ name, from: before.get(name) ?? null, to }));
      revision = await recordRevision(this.deps.db, id, author, this.deps.clock(), changes, Object.fromEntries(diff.map((d) => [d.name, d.from])));
      await this.deps.logs.write({
        level: 'information',
        instanceId: id,
        handler: 'config',
        message: `Revision ${revision} saved: ${diff.map((d) => `${d.name} ${d.from ?? '(unset)'} → ${d.to}`).join(', ')}`,
        properties: { revision, author },
      });
    } finally {
      this.busy.delete(id);
    }
    // Whoever looks at this instance's configuration learns of the new revision.
    const saved: OperationCompletedPayload = { instanceId: id, kind: 'configure', ok: true, error: null, detail: `revision ${revision} saved` };
    this.deps.bus.publish({ event: 'OperationCompleted', payload: saved, audience: await this.audience(row) });
    const running = engine.pid(rt) !== null;
    if (apply === 'restart' && running) {
      await this.restart(id);
      return { revision, ...result, applied: 'restarting' };
    }
    // A reload applies reload-only changes and makes pg mark the others pending_restart.
    if (apply !== 'none' && running && row.type === 'pg') {
      const report = await engine.reload(rt);
      await this.probeInto(row, rt, engine);
      if (report.errors.length > 0) {
        throw validationProblem(Object.fromEntries(report.errors.map((e) => [e.name, [e.message]])));
      }
      return { revision, ...result, applied: 'reloaded' };
    }
    await this.refresh(id);
    return { revision, ...result, applied: 'none' };
  }

  async restoreRevision(id: string, revision: number, apply: 'none' | 'reload' | 'restart', author: string | null, isAdmin = false) {
    const row = await this.requireRow(id);
    const target = await revisionParameters(this.deps.db, id, revision);
    if (target === null) throw new HttpProblem(404, `The instance has no configuration revision ${revision}.`);
    const current = await revisionParameters(this.deps.db, id);
    const engine = this.engine(row.type);
    let defaults: Map<string, string | null>;
    try {
      defaults = new Map((await engine.parameters(this.runtime(row))).map((p) => [p.name, p.default]));
    } catch (error) {
      throw error instanceof EngineError ? new HttpProblem(409, error.message) : error;
    }
    const changes: Record<string, string> = { ...target };
    // What was set after that revision goes back to its default.
    for (const name of Object.keys(current)) {
      if (!(name in target)) changes[name] = defaults.get(name) ?? '';
    }
    for (const [name, value] of Object.entries(changes)) if (current[name] === value) delete changes[name];
    if (Object.keys(changes).length === 0) throw new HttpProblem(409, `The configuration already matches revision ${revision}.`);
    return this.configure(id, changes, apply, author, isAdmin);
  }

  revisions(id: string, page: number, pageSize: number) {
    return listRevisions(this.deps.db, id, { page, pageSize });
  }

  // ---- Scratch instances ----

  /**
   * A throwaway runtime for verification and sandboxes: a hidden folder beside the instances (the
   * engine user can reach it) and ports no instance gets until `dispose` stops and removes it.
   */
  async scratch(type: InstanceType, name: string): Promise<{ rt: InstanceRuntime; dispose: () => Promise<void> }> {
    const ports = await this.ports.reserve(type === 'etcd' ? 2 : 1);
    const rt: InstanceRuntime = { id: `scratch-${name}`, dir: path.join(this.instancesDir, `.scratch-${type}-${name}`), port: ports[0], peerPort: ports[1] };
    const engine = this.engine(type);
    const dispose = async () => {
      try {
        if (engine.pid(rt) !== null) await engine.stop(rt);
        fs.rmSync(rt.dir, { recursive: true, force: true });
        removeInstanceUser(rt.id);
      } finally {
        this.ports.release(ports);
      }
    };
    return { rt, dispose };
  }

  /** Scratch instances a server stop cut off: stopped and removed at start. */
  private async removeLeftoverScratch() {
    let names: string[];
    try {
      names = fs.readdirSync(this.instancesDir);
    } catch {
      return;
    }
    for (const name of names) {
      const match = /^\.scratch-(pg|etcd)-/.exec(name);
      if (!match) continue;
      const engine = this.engine(match[1] as InstanceType);
      // The id `scratch` gave it, so its system user is found and removed too.
      const rt: InstanceRuntime = { id: `scratch-${name.slice(match[0].length)}`, dir: path.join(this.instancesDir, name), port: 0 };
      if (engine.pid(rt) !== null) await engine.stop(rt).catch(() => undefined);
      fs.rmSync(rt.dir, { recursive: true, force: true });
      try {
        removeInstanceUser(rt.id);
      } catch {
        // A user still in use is left for an operator; the server starts anyway.
      }
    }
  }

  // ---- Supervision ----

  /**
   * After a server start: operations cut off by the stop are cleared, running instances are adopted
   * as they are (never restarted), instances that should run and do not are started.
   */
  async reconcile(): Promise<void> {
    await this.removeLeftoverScratch();
    for (const row of await allInstanceRows(this.deps.db)) {
      if (row.operation_kind) await this.change(row.id, { operation_kind: null, operation_started_at: null });
      const engine = this.engine(row.type);
      const rt = this.runtime(row);
      if (row.status === 'unInitialized') {
        if (row.operation_kind) {
          await this.change(row.id, { status_reason: 'Initialization was interrupted by a server stop: start the instance to try again.' });
        }
        continue;
      }
      this.deps.logs.tail(row.id, engine.logDir(rt), row.type);
      if (engine.pid(rt) !== null || row.desired_state === 'stopped') {
        await this.refresh(row.id);
      } else {
        this.launch(row.id, 'start', async (current) => {
          await this.startEngine(current, rt, engine);
          return 'started after a server start';
        });
      }
    }
  }

  /** Reconciles, then probes every instance each `probeIntervalMs` and tails their logs. */
  async startSupervision(): Promise<void> {
    await this.reconcile();
    this.deps.logs.start();
    const interval = this.deps.config.probeIntervalMs ?? 5000;
    this.probeTimer = setInterval(() => void this.probeAll(), interval);
    this.probeTimer.unref();
  }

  probeAll(): Promise<void> {
    this.probing ??= (async () => {
      for (const row of await allInstanceRows(this.deps.db)) {
        if (this.closed) return;
        if (!this.busy.has(row.id) && !row.operation_kind) {
          await this.refresh(row.id).catch(() => undefined);
          await this.restartIfCrashed(row.id).catch(() => undefined);
        }
      }
    })().finally(() => {
      this.probing = null;
    });
    return this.probing;
  }

  /** Stops probing and waits (a while) for running operations; the instances keep running. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.probeTimer) clearInterval(this.probeTimer);
    for (const state of this.crashes.values()) if (state.timer) clearTimeout(state.timer);
    const pending = Promise.allSettled([...this.busy.values(), this.probing]);
    await Promise.race([pending, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    await this.deps.logs.stop();
  }

  /** Resolves when no operation runs: tests and benchmarks wait on it. */
  async idle(): Promise<void> {
    while (this.busy.size > 0) await Promise.allSettled([...this.busy.values()]);
  }

  /** Probes one instance and records its status and health; answers the new status. */
  async refresh(id: string): Promise<InstanceStatus | undefined> {
    const row = await findInstanceRow(this.deps.db, id);
    if (!row || row.status === 'unInitialized') return row?.status;
    return this.probeInto(row, this.runtime(row), this.engine(row.type));
  }

  /**
   * An instance that should run, whose process is gone while no operation runs, crashed: it is
   * started again after a backoff (a timer, and every probe, check whether the start is due), until
   * the fifth crash within the window leaves it offline as a crash loop.
   */
  private async restartIfCrashed(id: string): Promise<void> {
    if (this.closed || this.busy.has(id)) return;
    const row = await findInstanceRow(this.deps.db, id);
    // Checked again after the read: a start launched meanwhile is not a crash.
    if (this.closed || this.busy.has(id)) return;
    if (!row || row.status === 'unInitialized' || row.desired_state !== 'running' || row.operation_kind) return;
    const engine = this.engine(row.type);
    const rt = this.runtime(row);
    if (engine.pid(rt) !== null) return;
    const state = this.crashes.get(id) ?? { at: [], nextStartAt: null, gaveUp: false, timer: null };
    this.crashes.set(id, state);
    if (state.gaveUp) return;
    const now = this.deps.clock().getTime();
    if (state.nextStartAt === null) {
      state.at = [...state.at.filter((t) => now - t < crashWindowMs), now];
      if (state.at.length >= crashBurst) {
        state.gaveUp = true;
        await this.probeInto(row, rt, engine);
        await this.deps.logs.write({
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
      await this.deps.logs.write({
        level: 'warning',
        instanceId: id,
        handler: 'supervisor',
        message: `The engine process is gone (crash ${state.at.length} within ${crashWindowMs / 60_000} minutes; at ${crashBurst} it is left offline): starting it again in ${delay / 1000} s.`,
        properties: { crashes: state.at.length, delayMs: delay },
      });
      return;
    }
    if (now < state.nextStartAt) return;
    state.nextStartAt = null;
    if (state.timer) clearTimeout(state.timer);
    state.timer = null;
    const crashes = state.at.length;
    this.launch(id, 'start', async (current, currentRt) => {
      await this.startEngine(current, currentRt, engine);
      return `started again after a crash (${crashes} within ${crashWindowMs / 60_000} minutes)`;
    });
  }

  private forgetCrashes(id: string) {
    const state = this.crashes.get(id);
    if (state?.timer) clearTimeout(state.timer);
    this.crashes.delete(id);
  }

  // ---- Internals ----

  private async requireRow(id: string): Promise<InstanceRow> {
    const row = await findInstanceRow(this.deps.db, id);
    if (!row) throw new HttpProblem(404, `No instance has the id ${id}.`);
    return row;
  }

  private claim(id: string) {
    if (this.busy.has(id)) throw new HttpProblem(409, 'Another operation is running on this instance: wait for it to finish.');
    this.busy.set(id, Promise.resolve());
  }

  private async operate(
    id: string,
    kind: OperationKind,
    change: InstanceChange,
    work: (row: InstanceRow, rt: InstanceRuntime, engine: Engine) => Promise<string | null>,
  ): Promise<Instance> {
    this.claim(id);
    await this.change(id, { ...change, operation_kind: kind, operation_started_at: this.deps.clock().toISOString() });
    await this.publishInstance('InstanceUpdated', id);
    this.launch(id, kind, (row, rt) => work(row, rt, this.engine(row.type)));
    return (await findInstance(this.deps.db, id))!;
  }

  /** Runs an operation in the background; its end clears the operation and tells everyone how it went. */
  private launch(id: string, kind: OperationKind, work: (row: InstanceRow, rt: InstanceRuntime) => Promise<string | null>) {
    const done = (async () => {
      let error: string | null = null;
      let detail: string | null = null;
      const row = await this.requireRow(id);
      try {
        detail = await work(row, this.runtime(row));
      } catch (failure) {
        error = message(failure);
        const current = await findInstanceRow(this.deps.db, id);
        if (current) {
          await this.settle(id, this.statusAfterFailure(current), error, {
            level: 'error',
            checks: [{ name: kind, level: 'error', message: error }],
          });
        }
      }
      const current = await findInstanceRow(this.deps.db, id);
      if (!current) return;
      await this.change(id, { operation_kind: null, operation_started_at: null });
      await this.publishInstance('InstanceUpdated', id);
      const payload: OperationCompletedPayload = { instanceId: id, kind, ok: error === null, error, detail };
      this.deps.bus.publish({ event: 'OperationCompleted', payload, audience: await this.audience(current) });
      await this.deps.logs.write({
        level: error ? 'error' : 'information',
        instanceId: id,
        handler: 'supervisor',
        message: error ? `${kind} failed: ${error}` : `${kind} finished${detail ? `: ${detail}` : ''}`,
        properties: { operation: kind },
      });
    })()
      .catch(() => undefined)
      .finally(() => this.busy.delete(id));
    this.busy.set(id, done);
  }

  /** What a failed operation leaves: never initialized, still running, or down (offline if it should run). */
  private statusAfterFailure(row: InstanceRow): InstanceStatus {
    if (row.status === 'unInitialized') return 'unInitialized';
    if (this.engine(row.type).pid(this.runtime(row)) !== null) return 'running';
    return row.desired_state === 'running' ? 'offline' : 'stopped';
  }

  private async startEngine(row: InstanceRow, rt: InstanceRuntime, engine: Engine) {
    this.deps.logs.tail(row.id, engine.logDir(rt), row.type);
    await this.resetManaged(row.id, rt, engine);
    await engine.start(rt);
    await this.probeInto(row, rt, engine);
  }

  /** Managed values saved before the policy existed (or by hand) are dropped before a start, and said so. */
  private async resetManaged(id: string, rt: InstanceRuntime, engine: Engine) {
    const removed = engine.resetManaged(rt);
    if (removed.length === 0) return;
    await this.deps.logs.write({
      level: 'warning',
      instanceId: id,
      handler: 'config',
      message: `Reset to Warden's values before starting, as they are managed by Warden: ${removed.join(', ')}`,
      properties: { removed },
    });
  }

  private async probeInto(row: InstanceRow, rt: InstanceRuntime, engine: Engine): Promise<InstanceStatus> {
    const current = (await findInstanceRow(this.deps.db, row.id)) ?? row;
    const health = await engine.probe(rt);
    let status: InstanceStatus;
    let reason: string | null = null;
    let shown: Health = { level: health.level, checks: health.checks };
    if (health.running) status = 'running';
    else if (current.desired_state === 'running') {
      status = 'offline';
      // A crash loop stays named as one until someone starts the instance.
      reason = this.crashes.get(row.id)?.gaveUp && engine.pid(rt) === null ? crashLoopReason : failingChecks(health);
    } else if (engine.pid(rt) !== null) status = 'running';
    else {
      status = 'stopped';
      shown = stoppedHealth;
    }
    await this.settle(row.id, status, reason, shown);
    return status;
  }

  /**
   * Records status and health; publishes InstanceStatusChanged only when the status, the reason, the
   * health level or the checks (as a set of name, level and message) changed, so a quiet instance is quiet.
   */
  private async settle(id: string, status: InstanceStatus, reason: string | null, health: Health) {
    const row = await findInstanceRow(this.deps.db, id);
    if (!row) return;
    const checks = JSON.stringify(health.checks);
    if (row.status === status && row.status_reason === reason && row.health_level === health.level && sameChecks(row.health_checks, health.checks)) return;
    await this.change(id, { status, status_reason: reason, health_level: health.level, health_checks: checks });
    const version = (await findInstanceRow(this.deps.db, id))?.version ?? row.version + 1;
    const payload: InstanceStatusChangedPayload = { id, status, previousStatus: row.status, statusReason: reason, health, version };
    this.deps.bus.publish({ event: 'InstanceStatusChanged', payload, audience: await this.audience(row) });
    if (row.status !== status) {
      await this.deps.logs.write({
        level: status === 'offline' ? 'warning' : 'information',
        instanceId: id,
        handler: 'supervisor',
        message: `Status ${row.status} → ${status}${reason ? `: ${reason}` : ''}`,
      });
    }
  }

  private change(id: string, change: InstanceChange) {
    return updateInstanceRow(this.deps.db, id, change);
  }

  /** List-level and instance-level listeners who may see this instance: admins and its group's members. */
  private async audience(row: Pick<InstanceRow, 'id' | 'group_id'>): Promise<Audience> {
    const userIds = await memberIdsOfGroup(this.deps.db, row.group_id);
    return { kind: 'scoped', groups: [hubGroupNames.instances, hubGroupNames.instance(row.id)], userIds };
  }


  async publishInstance(event: 'InstanceCreated' | 'InstanceUpdated', id: string, known?: Instance) {
    const instance = known ?? (await findInstance(this.deps.db, id));
    if (!instance) return;
    this.deps.bus.publish({ event, payload: { instance }, audience: await this.audience({ id, group_id: instance.groupId }) });
  }
}

/** Whether the stored checks (JSON) hold the same name, level and message triples as `checks`, in any order. */
function sameChecks(stored: string, checks: Health['checks']): boolean {
  const key = (list: Health['checks']) => list.map((c) => JSON.stringify([c.name, c.level, c.message])).sort().join('\n');
  try {
    return key(JSON.parse(stored) as Health['checks']) === key(checks);
  } catch {
    return false;
  }
}

function reloadDetail(errors: { name: string; message: string }[], pending: string[]): string {
  const parts = ['configuration reloaded'];
  if (errors.length > 0) parts.push(`refused: ${errors.map((e) => `${e.name} (${e.message})`).join(', ')}`);
  if (pending.length > 0) parts.push(`waiting for a restart: ${pending.join(', ')}`);
  return parts.join('; ');
}
