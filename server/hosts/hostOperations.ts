import { sql } from 'kysely';
import type { Instance, OperationCompletedPayload, OperationKind } from '../../contracts/instances';
import { findInstance, findInstanceRow, type InstanceChange } from '../db/instances';
import { HttpProblem } from '../http/problems';
import { message, type InstanceContext } from '../instances/instanceContext';
import type { InstanceService } from '../instances/instanceService';
import { enqueue, type HostOperation, type QueuedKind } from './hostQueue';
import { findHostRow } from './hostStore';

// Operations on instances of another host: queued by the API server that is asked, run by the host's agent.

/**
 * Queues the operation for the instance's host when this process does not run the instance, and
 * answers the instance as it now shows (its operation under way); null when it runs here. The
 * instance's one operation at a time holds across servers: the claim is a conditional update.
 */
export async function queueForHost(ctx: InstanceContext, id: string, kind: QueuedKind, change: InstanceChange, input: object = {}): Promise<Instance | null> {
  const row = await ctx.requireRow(id);
  if (ctx.isLocal(row)) return null;
  const host = row.host_id ? await findHostRow(ctx.deps.db, row.host_id) : undefined;
  if (!host) {
    throw new HttpProblem(409, `No host runs ${row.name} yet: the first agent (WARDEN_ROLE=agent) to start on this store takes it.`);
  }
  if (host.lost_at) {
    throw new HttpProblem(409, `${row.name} runs on host ${host.name}, which is lost (no heartbeat since ${host.heartbeat_at}): try again once its agent is back.`);
  }
  const now = ctx.deps.clock();
  const { numUpdatedRows } = await ctx.deps.db
    .updateTable('instances')
    .set({ ...change, operation_kind: kind, operation_started_at: now.toISOString(), version: sql<number>`version + 1` })
    .where('id', '=', id)
    .where('operation_kind', 'is', null)
    .executeTakeFirst();
  if (Number(numUpdatedRows) !== 1) throw new HttpProblem(409, 'Another operation is running on this instance: wait for it to finish.');
  await enqueue(ctx.deps.db, { hostId: host.id, instanceId: id, kind, input }, now);
  await ctx.publishInstance('InstanceUpdated', id);
  return (await findInstance(ctx.deps.db, id))!;
}

/** Runs a queued operation on this host and waits for its end, which it records and announces as any operation's. */
export async function runQueued(service: InstanceService, op: HostOperation): Promise<void> {
  const input = JSON.parse(op.input) as { parameters?: Record<string, string>; author?: string | null; force?: boolean; backupId?: string; sourceId?: string };
  const id = op.instance_id;
  try {
    switch (op.kind as QueuedKind) {
      case 'create':
        await service.createQueued(id, input.parameters ?? {}, input.author ?? null);
        break;
      case 'clone':
        await service.restoreQueued(id, input.sourceId ?? '', input.backupId ?? '', input.author ?? null);
        break;
      case 'start':
        await service.start(id);
        break;
      case 'stop':
        await service.stop(id);
        break;
      case 'restart':
        await service.restart(id);
        break;
      case 'reload':
        await service.reload(id);
        break;
      case 'delete':
        await service.delete(id, input.force === true);
        break;
      default:
        throw new Error(`This agent does not know the operation ${op.kind}: update it to the servers' version.`);
    }
  } catch (error) {
    await refused(service, id, op.kind as OperationKind, message(error));
  }
  await service.busy.get(id);
}

/** An operation its agent refused before it ran (the instance's state did not allow it): said as its end. */
export async function refused(ctx: InstanceContext, id: string, kind: OperationKind, error: string): Promise<void> {
  const row = await findInstanceRow(ctx.deps.db, id);
  if (!row) return;
  await ctx.change(id, { operation_kind: null, operation_started_at: null });
  await ctx.publishInstance('InstanceUpdated', id);
  const payload: OperationCompletedPayload = { instanceId: id, kind, ok: false, error, detail: null };
  ctx.deps.bus.publish({ event: 'OperationCompleted', payload, audience: await ctx.audience(row) });
  await ctx.deps.logs.write({ level: 'error', instanceId: id, handler: 'supervisor', message: `${kind} failed: ${error}`, properties: { operation: kind } });
}
