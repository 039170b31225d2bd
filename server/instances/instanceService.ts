import { actOnMember, addMember, cancelSwitchover, etcdUpkeep, removeClusterMember, failover, setPaused, switchover, type SwitchoverInput } from './clusterOperations';
import type { ConfigChange, Instance, InstanceConfig, InstanceMember, InstanceStatus, OperationCompletedPayload, UpdateConfigResponse } from '../../contracts/instances';
import type { InstanceType } from '../../contracts/instanceValues';
import { inUnit } from '../../contracts/parameterUnits';
import type { InstanceRow } from '../db/instances';
import type { Engine, InstanceRuntime } from '../engines/engine';
import { limitsFor, mayEdit, parameterPolicy, policyErrors, refusal } from '../engines/parameterPolicy';
import { ParametersRefused } from '../engines/parameterValues';
import { EngineError } from '../engines/processRunner';
import { unreachableProblem } from '../http/pgProblem';
import { HttpProblem, validationProblem } from '../http/problems';
import { cloneFromBackup, cloneInstance, createInstance, launchCreation, launchRestore, nameProblem, restoreToPoint, type CopyShape, type CreateInput, type PointRestoreInput } from './createInstance';
import { InstanceContext } from './instanceContext';
import { probeInto, refresh } from './instanceHealth';
import { deleteInstance, reloadInstance, restartInstance, startInstance, stopInstance, updateInstance } from './lifecycle';
import { latestRevision, listRevisions, recordRevision, revisionParameters } from './revisions';
import { scratch } from './scratchInstances';
import { Supervisor } from './supervision';
import { queueForHost } from '../hosts/hostOperations';

/**
 * Runs instances (DESIGN §5): creates them through their engine, keeps desired state in the store,
 * runs one operation per instance at a time, probes health, and reconciles after a server start.
 * Every change goes out through the event bus. Server shutdown leaves instances running. Each job
 * lives in its own module; this class configures instances and hands every other call to its job.
 */
export class InstanceService extends InstanceContext {
  private readonly supervisor = new Supervisor(this);

  // ---- Names, create and clone (createInstance.ts) ----

  nameProblem(name: string): Promise<string | null> {
    return nameProblem(this, name);
  }

  create(input: CreateInput, author: string | null, isAdmin = false): Promise<Instance> {
    return createInstance(this, input, author, isAdmin);
  }

  /** An agent makes an instance an API server placed on its host (the row exists, the create is queued). */
  async createQueued(id: string, parameters: Record<string, string>, author: string | null): Promise<void> {
    const row = await this.requireRow(id);
    this.claim(id);
    launchCreation(this, id, this.engine(row.type), parameters, author);
  }

  /** An agent restores a backup into an instance an API server placed on its host (the row exists, the clone is queued). */
  async restoreQueued(id: string, sourceId: string, backupId: string, author: string | null): Promise<void> {
    const row = await this.requireRow(id);
    const source = await this.requireRow(sourceId);
    this.claim(id);
    launchRestore(this, id, this.engine(row.type), source, backupId, author);
  }

  cloneFromBackup(sourceId: string, input: { name: string; backupId: string; description?: string; hostId?: string }, author: string | null): Promise<Instance> {
    return cloneFromBackup(this, sourceId, input, author);
  }

  clone(sourceId: string, input: { name: string; description?: string } & CopyShape, author: string | null): Promise<Instance> {
    return cloneInstance(this, sourceId, input, author);
  }

  restoreToPoint(sourceId: string, input: PointRestoreInput, author: string | null, recorded: Parameters<typeof restoreToPoint>[4]): Promise<Instance> {
    return restoreToPoint(this, sourceId, input, author, recorded);
  }

  // ---- Lifecycle operations (lifecycle.ts) ----

  async start(id: string): Promise<Instance> {
    return (await queueForHost(this, id, 'start', { desired_state: 'running' })) ?? startInstance(this, id);
  }

  async stop(id: string): Promise<Instance> {
    return (await queueForHost(this, id, 'stop', { desired_state: 'stopped' })) ?? stopInstance(this, id);
  }

  async restart(id: string): Promise<Instance> {
    return (await queueForHost(this, id, 'restart', { desired_state: 'running' })) ?? restartInstance(this, id);
  }

  async reload(id: string): Promise<Instance> {
    return (await queueForHost(this, id, 'reload', {})) ?? reloadInstance(this, id);
  }

  update(id: string): Promise<Instance> {
    return updateInstance(this, id);
  }

  async delete(id: string, force: boolean): Promise<{ id: string; backups: string }> {
    const queued = await queueForHost(this, id, 'delete', {}, { force });
    if (queued) return { id, backups: 'Its host\'s agent deletes it and its data folder; backups of it are kept.' };
    return deleteInstance(this, id, force);
  }

  // ---- A PostgreSQL cluster's operations (clusterOperations.ts) ----

  switchover(id: string, input: SwitchoverInput): Promise<Instance> {
    return switchover(this, id, input);
  }

  failover(id: string, candidate: number): Promise<Instance> {
    return failover(this, id, candidate);
  }

  setFailoverPaused(id: string, paused: boolean): Promise<Instance> {
    return setPaused(this, id, paused);
  }

  actOnMember(id: string, ordinal: number, action: 'restart' | 'reinitialize'): Promise<Instance> {
    return actOnMember(this, id, ordinal, action);
  }

  etcdUpkeep(id: string, what: 'compact' | 'defragment'): Promise<Instance> {
    return etcdUpkeep(this, id, what);
  }

  cancelSwitchover(id: string): Promise<Instance> {
    return cancelSwitchover(this, id);
  }

  addMember(id: string): Promise<Instance> {
    return addMember(this, id);
  }

  removeMember(id: string, ordinal: number): Promise<Instance> {
    return removeClusterMember(this, id, ordinal);
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
        return {
          ...p,
          ...limitsFor(row.type, p, isAdmin),
          value: hidden ? '(set by Warden)' : p.value,
          policy,
          editable: mayEdit(policy, isAdmin),
          reason: refusal(row.type, p.name, isAdmin),
        };
      });
      const pendingRestart = await engine.pendingRestart(rt);
      return { revision: (await latestRevision(this.deps.db, id))?.revision ?? 0, parameters, pendingRestart };
    } catch (error) {
      throw engineProblem(error);
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
        const allowed = Object.fromEntries(Object.entries(changes).filter(([name]) => !Object.hasOwn(refused, name)));
        errors = { ...(await engine.validate(rt, allowed)), ...refused };
      } catch (error) {
        throw engineProblem(error);
      }
      // Nothing is written when any parameter is refused.
      if (Object.keys(errors).length > 0) throw validationProblem(errors);
      // The previous value as the console saved it (with its unit), else the engine's current setting.
      const saved = await revisionParameters(this.deps.db, id);
      const parameters = await engine.parameters(rt).catch((error: unknown) => {
        throw engineProblem(error);
      });
      const before = new Map(parameters.map((p) => [p.name, Object.hasOwn(saved, p.name) ? saved[p.name] : p.value]));
      const units = new Map(parameters.map((p) => [p.name, p.unit]));
      try {
        result = await engine.apply(rt, changes);
      } catch (error) {
        throw error instanceof ParametersRefused ? validationProblem(error.errors) : engineProblem(error);
      }
      const diff: ConfigChange[] = Object.entries(changes).map(([name, to]) => ({ name, from: before.get(name) ?? null, to }));
      revision = await recordRevision(this.deps.db, id, author, this.deps.clock(), changes, Object.fromEntries(diff.map((d) => [d.name, d.from])));
      await this.deps.logs.write({
        level: 'information',
        instanceId: id,
        handler: 'config',
        // Both sides in the parameter's unit, as the review showed them (`16384 8kB → 8192 8kB`, not `16384 → 64MB`).
        message: `Revision ${revision} saved: ${diff
          .map(({ name, from, to }) => `${name} ${from === null ? '(unset)' : inUnit(from, units.get(name) ?? null)} → ${inUnit(to, units.get(name) ?? null)}`)
          .join(', ')}`,
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
    const has = (values: Record<string, string>, name: string) => Object.hasOwn(values, name);
    // What was set after that revision goes back to its default; a name the engine does not know
    // (saved before names were checked) has none and is left out. The revision's own values are
    // checked like any change.
    const reset = Object.keys(current)
      .filter((name) => !has(target, name) && defaults.has(name))
      .map((name): [string, string] => [name, defaults.get(name) ?? '']);
    const changes = Object.fromEntries(
      [...Object.entries(target), ...reset].filter(([name, value]) => !(has(current, name) && current[name] === value)),
    );
    if (Object.keys(changes).length === 0) throw new HttpProblem(409, `The configuration already matches revision ${revision}.`);
    return this.configure(id, changes, apply, author, isAdmin);
  }

  /** Each member of the instance as its engine sees it now. */
  members(row: InstanceRow): Promise<InstanceMember[]> {
    return this.engine(row.type).members(this.runtime(row));
  }

  revisions(id: string, page: number, pageSize: number) {
    return listRevisions(this.deps.db, id, { page, pageSize });
  }

  // ---- Scratch instances (scratchInstances.ts) ----

  /** A throwaway copy's runtime, with the limits of `limitsOf`'s group (scratchInstances.ts). */
  scratch(type: InstanceType, name: string, limitsOf: string | null): Promise<{ rt: InstanceRuntime; dispose: () => Promise<void> }> {
    return scratch(this, type, name, limitsOf);
  }

  // ---- Supervision (supervision.ts, instanceHealth.ts) ----

  reconcile(): Promise<void> {
    return this.supervisor.reconcile();
  }

  /** Reconciles, then probes every instance each `probeIntervalMs` and tails their logs. */
  startSupervision(): Promise<void> {
    return this.supervisor.start();
  }

  probeAll(): Promise<void> {
    return this.supervisor.probeAll();
  }

  /** Stops probing and waits (a while) for running operations; the instances keep running. */
  close(): Promise<void> {
    return this.supervisor.close();
  }

  /** Resolves when no operation runs: tests and benchmarks wait on it. */
  async idle(): Promise<void> {
    while (this.busy.size > 0) await Promise.allSettled([...this.busy.values()]);
  }

  /** Probes one instance and records its status and health; answers the new status. */
  refresh(id: string): Promise<InstanceStatus | undefined> {
    return refresh(this, id);
  }

  private probeInto(row: InstanceRow, rt: InstanceRuntime, engine: Engine): Promise<InstanceStatus> {
    return probeInto(this, row, rt, engine);
  }
}

/** What an engine call threw, as its caller's problem: the engine's refusal, or an instance that does not answer. */
function engineProblem(error: unknown): unknown {
  if (error instanceof EngineError) return new HttpProblem(409, error.message);
  return unreachableProblem(error) ?? error;
}
