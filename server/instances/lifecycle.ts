import fs from 'node:fs';
import type { Instance, InstanceStatus, OperationCompletedPayload, OperationKind } from '../../contracts/instances';
import { formatBytes } from '../../contracts/backupValues';
import { clustersRelyingOn, deleteInstanceRow, findInstance, findInstanceRow, type InstanceChange, type InstanceRow } from '../db/instances';
import { removeInstanceLimits } from '../engines/confinement';
import type { Engine, InstanceRuntime } from '../engines/engine';
import { EngineError } from '../engines/processRunner';
import { removeInstanceUser } from '../engines/instanceUsers';
import { HttpProblem } from '../http/problems';
import { message, type InstanceContext } from './instanceContext';
import { probeInto, settle, stoppedHealth } from './instanceHealth';
import { revisionParameters } from './revisions';

// The lifecycle of an instance: start, stop, restart, reload, update and delete, each run as the
// instance's one operation in the background, and how an operation's end is recorded and announced.

export async function startInstance(ctx: InstanceContext, id: string): Promise<Instance> {
  await ctx.requireRow(id);
  // A start by hand is a fresh chance: the crash count starts again.
  ctx.forgetCrashes(id);
  return operate(ctx, id, 'start', { desired_state: 'running' }, async (row, rt, engine) => {
    if (row.status === 'unInitialized') {
      await engine.initialize(rt, await revisionParameters(ctx.deps.db, id));
      await ctx.change(id, { engine_version: await engine.version() });
    }
    await startEngine(ctx, row, rt, engine);
    return null;
  });
}

export async function stopInstance(ctx: InstanceContext, id: string): Promise<Instance> {
  const row = await ctx.requireRow(id);
  if (row.status === 'unInitialized') throw new HttpProblem(409, 'The instance was never initialized: there is nothing to stop.');
  ctx.forgetCrashes(id);
  return operate(ctx, id, 'stop', { desired_state: 'stopped' }, async (_row, rt, engine) => {
    await engine.stop(rt);
    await settle(ctx, id, 'stopped', null, stoppedHealth);
    return null;
  });
}

export async function restartInstance(ctx: InstanceContext, id: string): Promise<Instance> {
  const row = await ctx.requireRow(id);
  if (row.status === 'unInitialized') throw new HttpProblem(409, 'The instance was never initialized: start it instead.');
  ctx.forgetCrashes(id);
  return operate(ctx, id, 'restart', { desired_state: 'running' }, async (current, rt, engine) => {
    if (engine.pid(rt) === null) await startEngine(ctx, current, rt, engine);
    else {
      await resetManaged(ctx, id, rt, engine);
      await engine.restart(rt);
      await probeInto(ctx, current, rt, engine);
    }
    return null;
  });
}

export async function reloadInstance(ctx: InstanceContext, id: string): Promise<Instance> {
  const row = await ctx.requireRow(id);
  if (row.status !== 'running') throw new HttpProblem(409, `The instance is ${row.status}: only a running instance reloads its configuration.`);
  return operate(ctx, id, 'reload', {}, async (current, rt, engine) => {
    const report = await engine.reload(rt);
    await probeInto(ctx, current, rt, engine);
    return reloadDetail(report.errors, report.pendingRestart);
  });
}

/** Restarts onto the newest installed engine release (the same binaries path: a minor update). */
export async function updateInstance(ctx: InstanceContext, id: string): Promise<Instance> {
  const row = await ctx.requireRow(id);
  if (row.status === 'unInitialized') throw new HttpProblem(409, 'The instance was never initialized: there is nothing to update.');
  return operate(ctx, id, 'update', {}, async (current, rt, engine) => {
    // A backup first, so an update that goes wrong can be undone by restoring it.
    const taken = ctx.backups ? await ctx.backups.beforeUpdate(id) : null;
    const latest = await engine.version();
    if (engine.pid(rt) !== null) {
      await engine.restart(rt);
      await probeInto(ctx, current, rt, engine);
    }
    await ctx.change(id, { engine_version: latest });
    return `now on ${latest}${taken ? `; ${taken}` : ''}`;
  });
}

export async function deleteInstance(ctx: InstanceContext, id: string, force: boolean): Promise<{ id: string; backups: string }> {
  const row = await ctx.requireRow(id);
  const engine = ctx.engine(row.type);
  const rt = ctx.runtime(row);
  if (engine.pid(rt) !== null && !force) {
    throw new HttpProblem(409, `${row.name} is running: stop it first, or delete with force to stop and delete it.`);
  }
  if (ctx.backups?.busy(id)) throw new HttpProblem(409, `A backup of ${row.name} is being taken or verified: wait for it to finish.`);
  if (row.type === 'etcd') {
    const relying = await clustersRelyingOn(ctx.deps.db, id);
    if (relying.length > 0) {
      const names = relying.map((other) => other.name).join(', ');
      throw new HttpProblem(409, `${row.name} keeps the leader lock of the PostgreSQL cluster${relying.length === 1 ? '' : 's'} ${names}: delete ${relying.length === 1 ? 'it' : 'them'} first.`);
    }
  }
  ctx.claim(id);
  try {
    await ctx.change(id, { operation_kind: 'delete', operation_started_at: ctx.deps.clock().toISOString() });
    await ctx.publishInstance('InstanceUpdated', id);
    ctx.deps.logs.untail(id);
    if (engine.pid(rt) !== null) await engine.stop(rt);
    if (fs.existsSync(rt.dir)) await engine.remove(rt);
    // Also when the folder was already gone (a delete retried after a failure).
    await removeInstanceUser(rt.id);
    removeInstanceLimits(rt.dir);
    const audience = await ctx.audience(row);
    ctx.forgetCrashes(id);
    await deleteInstanceRow(ctx.deps.db, id);
    ctx.deps.bus.publish({ event: 'InstanceDeleted', payload: { id }, audience });
    await ctx.deps.logs.write({
      level: 'information',
      instanceId: null,
      handler: 'supervisor',
      message: `Instance ${row.name} (${row.type}) deleted with its data folder.`,
    });
  } catch (error) {
    await ctx.change(id, { operation_kind: null, operation_started_at: null }).catch(() => undefined);
    throw error instanceof EngineError ? new HttpProblem(409, error.message) : error;
  } finally {
    ctx.busy.delete(id);
  }
  const kept = (await ctx.backups?.keptFor(id)) ?? { count: 0, bytes: 0 };
  const backups =
    kept.count === 0
      ? 'The instance had no backups in Warden; its data folder was removed.'
      : `Its data folder was removed; its ${kept.count === 1 ? 'backup is' : `${kept.count} backups are`} kept (${formatBytes(kept.bytes)}): an admin can restore or delete ${kept.count === 1 ? 'it' : 'them'} from Backups.`;
  return { id, backups };
}

export async function operate(
  ctx: InstanceContext,
  id: string,
  kind: OperationKind,
  change: InstanceChange,
  work: (row: InstanceRow, rt: InstanceRuntime, engine: Engine) => Promise<string | null>,
): Promise<Instance> {
  ctx.claim(id);
  await ctx.change(id, { ...change, operation_kind: kind, operation_started_at: ctx.deps.clock().toISOString() });
  await ctx.publishInstance('InstanceUpdated', id);
  launch(ctx, id, kind, (row, rt) => work(row, rt, ctx.engine(row.type)));
  return (await findInstance(ctx.deps.db, id))!;
}

/** Runs an operation in the background; its end clears the operation and tells everyone how it went. */
export function launch(ctx: InstanceContext, id: string, kind: OperationKind, work: (row: InstanceRow, rt: InstanceRuntime) => Promise<string | null>) {
  const done = (async () => {
    let error: string | null = null;
    let detail: string | null = null;
    const row = await ctx.requireRow(id);
    try {
      detail = await work(row, ctx.runtime(row));
    } catch (failure) {
      error = message(failure);
      const current = await findInstanceRow(ctx.deps.db, id);
      if (current) {
        await settle(ctx, id, statusAfterFailure(ctx, current), error, {
          level: 'error',
          checks: [{ name: kind, level: 'error', message: error }],
        });
      }
    }
    const current = await findInstanceRow(ctx.deps.db, id);
    if (!current) return;
    await ctx.change(id, { operation_kind: null, operation_started_at: null });
    await ctx.publishInstance('InstanceUpdated', id);
    const payload: OperationCompletedPayload = { instanceId: id, kind, ok: error === null, error, detail };
    ctx.deps.bus.publish({ event: 'OperationCompleted', payload, audience: await ctx.audience(current) });
    await ctx.deps.logs.write({
      level: error ? 'error' : 'information',
      instanceId: id,
      handler: 'supervisor',
      message: error ? `${kind} failed: ${error}` : `${kind} finished${detail ? `: ${detail}` : ''}`,
      properties: { operation: kind },
    });
  })()
    .catch(() => undefined)
    .finally(() => ctx.busy.delete(id));
  ctx.busy.set(id, done);
}

/** What a failed operation leaves: never initialized, still running, or down (offline if it should run). */
function statusAfterFailure(ctx: InstanceContext, row: InstanceRow): InstanceStatus {
  if (row.status === 'unInitialized') return 'unInitialized';
  if (ctx.engine(row.type).pid(ctx.runtime(row)) !== null) return 'running';
  return row.desired_state === 'running' ? 'offline' : 'stopped';
}

export async function startEngine(ctx: InstanceContext, row: InstanceRow, rt: InstanceRuntime, engine: Engine) {
  ctx.deps.logs.tail(row.id, engine.logDir(rt), row.type);
  await resetManaged(ctx, row.id, rt, engine);
  await engine.start(rt);
  await probeInto(ctx, row, rt, engine);
}

/** Managed values saved before the policy existed (or by hand) are dropped before a start, and said so. */
async function resetManaged(ctx: InstanceContext, id: string, rt: InstanceRuntime, engine: Engine) {
  const removed = engine.resetManaged(rt);
  if (removed.length === 0) return;
  await ctx.deps.logs.write({
    level: 'warning',
    instanceId: id,
    handler: 'config',
    message: `Reset to Warden's values before starting, as they are managed by Warden: ${removed.join(', ')}`,
    properties: { removed },
  });
}

function reloadDetail(errors: { name: string; message: string }[], pending: string[]): string {
  const parts = ['configuration reloaded'];
  if (errors.length > 0) parts.push(`refused: ${errors.map((e) => `${e.name} (${e.message})`).join(', ')}`);
  if (pending.length > 0) parts.push(`waiting for a restart: ${pending.join(', ')}`);
  return parts.join('; ');
}
